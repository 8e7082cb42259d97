# values: exact
# expect: call 0 source w: integer line 10
import tensorflow as tf

x = tf.constant([0.3, 1.7, 2.2])
w = tf.Variable(2.0)

with tf.GradientTape() as tape:
    scaled = w * x
    bins = tf.cast(scaled, tf.int32)
    loss = tf.reduce_sum(tf.cast(bins, tf.float32))

print(tape.gradient(loss, w))
