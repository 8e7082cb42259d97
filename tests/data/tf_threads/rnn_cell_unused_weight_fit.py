import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


class MyGRU(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        dim = input_shape[-1]
        self.w_z = self.add_weight(shape=(dim + self.units, self.units), name="update_gate")
        self.interim = self.add_weight(shape=(self.units, self.units), name="interim")

    def call(self, inputs, states):
        h = states[0]
        z = tf.sigmoid(tf.matmul(tf.concat([inputs, h], axis=-1), self.w_z))
        h_new = z * h + (1.0 - z) * tf.tanh(inputs[:, :1])
        return h_new, [h_new]


model = tf.keras.Sequential(
    [tf.keras.Input(shape=(3, 2)), tf.keras.layers.RNN(MyGRU(2)), tf.keras.layers.Dense(1)]
)
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(4, 3, 2), np.random.rand(4, 1), epochs=1, batch_size=4, verbose=0)
