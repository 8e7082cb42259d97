# values: exact
# expect: call 0 source data: connected
# expect: call 1 source data: connected
import tensorflow as tf

data = tf.Variable([1.0, 2.0, 3.0, 4.0])
with tf.GradientTape(persistent=True) as tape:
    s = tf.math.segment_sum(data * data, tf.constant([0, 0, 1, 1]))
    m = tf.math.unsorted_segment_mean(data, tf.constant([1, 0, 1, 1]), num_segments=3)
    loss_s = tf.reduce_sum(s * tf.constant([1.0, 10.0]))
    loss_m = tf.reduce_sum(m * tf.constant([1.0, 2.0, 3.0]))
g = tape.gradient(loss_s, data)
h = tape.gradient(loss_m, data)
