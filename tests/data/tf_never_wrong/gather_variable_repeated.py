# values: exact
# note: tf.gather of a variable with repeated Python int indices: IndexedSlices, summed
# expect: call 0 source v: connected
import tensorflow as tf

v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
with tf.GradientTape() as tape:
    rows = tf.gather(v, [0, 2, 0])
    loss = tf.reduce_sum(rows * tf.constant([[1.0], [2.0], [3.0]]))
g = tape.gradient(loss, v)
