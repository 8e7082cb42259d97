# values: exact
# note: a tf.py_function whose body uses TF ops is differentiable in eager mode
# expect: call 0 source w: connected
import tensorflow as tf


def tf_square(t):
    return tf.square(t)


x = tf.constant([1.0, 2.0])
w = tf.Variable(3.0)

with tf.GradientTape() as tape:
    sq = tf.py_function(tf_square, [w * x], tf.float32)
    loss = tf.reduce_sum(sq)

print(tape.gradient(loss, w))  # 2 * w * sum(x**2) = 30
