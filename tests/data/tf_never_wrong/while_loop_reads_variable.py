# values: exact
# expect: call 0 source w: connected
import tensorflow as tf

w = tf.Variable(1.5)
with tf.GradientTape() as tape:
    _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), [0, tf.constant(1.0)])
g = tape.gradient(acc, w)
