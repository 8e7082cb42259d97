# values: exact
# note: a NumPy float array or scalar meeting an int32 tensor is converted to int32
# note: (truncated: [1.5, 2.0] -> [1, 2]); NumPy's operators defer to the tensor
# expect: call 0 source w: connected
import numpy as np
import tensorflow as tf

w = tf.Variable([1.0, 2.0])
i = tf.constant([1, 2])
with tf.GradientTape() as tape:
    r = np.array([1.5, 2.0]) * i + i * np.float64(2.5)
    p = np.float64(2) ** w + np.ones((1, 2)) @ tf.reshape(w, (2, 1))
    loss = tf.reduce_sum(tf.cast(r, tf.float32) * w) + tf.reduce_sum(p)
g = tape.gradient(loss, w)
