# values: exact
# note: model.fit adds the losses a layer added with self.add_loss during the forward pass (and the kernel regularizer's penalty) to the compiled loss
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf


class Sparse(tf.keras.layers.Layer):
    def call(self, inputs):
        self.add_loss(0.01 * tf.reduce_sum(tf.abs(inputs)))
        return tf.nn.relu(inputs)


model = tf.keras.Sequential([
    tf.keras.Input(shape=(2,)),
    tf.keras.layers.Dense(3, kernel_initializer=tf.keras.initializers.Constant(0.5), kernel_regularizer="l2"),
    Sparse(),
    tf.keras.layers.Dense(1, kernel_initializer="ones"),
])
model.compile(optimizer="sgd", loss="mse")
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -3.0]])
y = np.array([[1.0], [0.0], [2.0]])
model.fit(x, y, batch_size=3, verbose=0)
