# values: exact
# note: the function never uses its argument: no_path at the call that dropped it
# expect: call 0 source c: no_path line 13
import tensorflow as tf


def head(val):
    return tf.constant([[3.0], [4.0]])


c = tf.Variable([[1.0], [2.0]])
with tf.GradientTape() as tape:
    f = head(c)
    loss = tf.reduce_sum(f * 2.0)
g = tape.gradient(loss, c)
