# values: exact
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

layer = tf.keras.layers.Dense(2, activation="relu")
layer.build((None, 3))
layer.kernel.assign(np.array([[0.5, -1.0], [0.25, 0.5], [-0.5, 1.0]]))
layer.bias.assign(np.array([0.1, -0.2]))

x = tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0]])
y = tf.constant([[0.0, 1.0], [1.0, 0.0]])

with tf.GradientTape() as tape:
    pred = layer(x)
    loss = tf.reduce_mean(tf.square(y - pred))

grads = tape.gradient(loss, layer.trainable_variables)
for var, g in zip(layer.trainable_variables, grads):
    print(var.name, g.numpy())
