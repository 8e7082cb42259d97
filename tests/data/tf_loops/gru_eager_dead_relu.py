import numpy as np
import tensorflow as tf
x = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4))
layer = tf.keras.layers.GRU(5)
with tf.GradientTape() as tape:
    h = layer(x)
    y = tf.reduce_sum(tf.nn.relu(h - 10.0))
print([float(tf.reduce_max(tf.abs(g))) for g in tape.gradient(y, layer.trainable_variables)])
