# values: exact
# expect: call 0 source w: connected
import tensorflow as tf

w = tf.Variable([1.0, -2.0])
with tf.GradientTape() as tape:
    a = [0.5, 1.5] + w
    b = w * [2.0, 3.0]
    loss = tf.reduce_sum(a * b)
g = tape.gradient(loss, w)
