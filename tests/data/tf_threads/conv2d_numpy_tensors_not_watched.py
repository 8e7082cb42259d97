import numpy as np
import tensorflow as tf

np.random.seed(0)
x_np = np.random.randint(10, size=(1, 4, 4, 1))
w_np = np.random.randint(10, size=(3, 3, 1, 1))
with tf.GradientTape(persistent=True) as g:
    x = tf.constant(x_np, dtype=tf.float32)
    w = tf.constant(w_np, dtype=tf.float32)
    y = tf.nn.conv2d(x, w, strides=(1, 1, 1, 1), padding="VALID")
print(g.gradient(y, w))
print(g.gradient(y, x))
