# values: exact
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.constant([1.0, 2.0], dtype=tf.float64)

with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.exp(x))

print(tape.gradient(y, x))
