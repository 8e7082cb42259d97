# values: exact
# note: a user cell's state_size given by a @property is a state_size (Keras reads it)
import tensorflow as tf


class Cell(tf.keras.layers.Layer):
    def __init__(self, units):
        super().__init__()
        self.units = units

    @property
    def state_size(self):
        return self.units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones")

    def call(self, inputs, states):
        out = tf.matmul(inputs, self.kernel) + states[0]
        return out, [out]


layer = tf.keras.layers.RNN(Cell(2))
x = tf.ones((1, 3, 2))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x))
g = tape.gradient(loss, layer.trainable_variables)
