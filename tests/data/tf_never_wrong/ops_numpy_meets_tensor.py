# values: exact
# note: NumPy arrays and scalars (float64, int64) meeting a float32 tensor take its dtype
# expect: call 0 source x: connected
import numpy as np
import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = np.array([3.0, 4.0]) * x
    z = np.float64(2.5) + x
    u = np.int64(3) * x
    r = x / np.float64(4.0)
    loss = tf.reduce_sum(y * z) + tf.reduce_sum(u) + tf.reduce_sum(r * r)
g = tape.gradient(loss, x)
