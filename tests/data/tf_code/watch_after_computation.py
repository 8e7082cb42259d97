# values: exact
# expect: call 0 source x: outside_tape line 8
import tensorflow as tf

x = tf.constant([1.0, 2.0], dtype=tf.float64)

with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.exp(x))
    tape.watch(x)  # too late: y was computed before x was watched

print(tape.gradient(y, x))
