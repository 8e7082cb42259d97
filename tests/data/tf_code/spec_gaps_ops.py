# values: exact
# note: issue 30's spec gaps through the reader: silu's beta, erfinv, xlog1py, truncatemod's
# note: value, diag and diag_part at an offset k, and pad with constant_values=-inf
# expect: call 0 source x: connected
# expect: call 0 source b: connected
import numpy as np
import tensorflow as tf

x = tf.Variable([0.5, -0.25, 0.75], dtype=tf.float64)
b = tf.Variable(1.5, dtype=tf.float64)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.nn.silu(x, b) + tf.nn.swish(x) + tf.math.erfinv(x))
    y = y + tf.reduce_sum(tf.math.xlog1py(x, x * x) * tf.truncatemod(tf.constant(5.5, tf.float64), 2.0))
    y = y + tf.reduce_sum(tf.linalg.diag(x, k=1) * 2.0)
    y = y + tf.reduce_sum(tf.linalg.diag_part(tf.linalg.diag(x * x, k=-1), k=-1))
    y = y + tf.reduce_max(tf.pad(x, [[1, 1]], constant_values=-np.inf))
print(tape.gradient(y, [x, b]))
