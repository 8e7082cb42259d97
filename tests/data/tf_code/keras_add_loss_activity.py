# values: exact
# note: activity_regularizer= (Dense's, and a custom layer's through super().__init__): Keras adds the penalty of the layer's output divided by the batch size with add_loss after each call (a scalar output's undivided), so it is in layer.losses and in the fit loss
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 2 source #0: connected
# expect: call 2 source #1: connected
# expect: call 2 source #2: connected
# expect: call 2 source #3: connected
import numpy as np
import tensorflow as tf


class Doubler(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__(activity_regularizer="l1")

    def call(self, inputs):
        self.add_loss(tf.reduce_sum(inputs))
        return inputs * 2.0


dense = tf.keras.layers.Dense(2, kernel_initializer="ones", activity_regularizer=tf.keras.regularizers.L2(0.1))
x = tf.constant([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
with tf.GradientTape() as tape:
    y = dense(x)
    loss = tf.add_n(dense.losses)
print(dense.losses)
print(tape.gradient(loss, dense.trainable_variables))

layer = Doubler()
with tf.GradientTape() as tape:
    tape.watch(x)
    layer(x)
    loss = tf.add_n(layer.losses)
print(layer.losses)
print(tape.gradient(loss, x))

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), dense, tf.keras.layers.Dense(1, kernel_initializer="ones")])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.array([[1.0, 2.0], [0.5, -1.0]]), np.array([[1.0], [2.0]]), verbose=0)
