# values: exact
# note: a ragged tensor's row sums
import tensorflow as tf

x = tf.Variable([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    r = tf.RaggedTensor.from_row_lengths(x * 2.0, [2, 1])
    loss = tf.reduce_sum(tf.reduce_sum(r, axis=1) * tf.constant([1.0, 5.0]))
g = tape.gradient(loss, x)
