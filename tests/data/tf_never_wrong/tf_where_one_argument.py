# values: exact
# note: tf.where(condition) alone is valid: the int64 indices of the true elements
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.Variable([1.0, -2.0, 3.0])
with tf.GradientTape() as tape:
    idx = tf.where(x > 0)
    loss = tf.reduce_sum(tf.gather_nd(x, idx) * 2.0)
g = tape.gradient(loss, x)
