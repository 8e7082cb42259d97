# values: exact
# expect: call 0 source w: connected
# expect: call 0 source b: connected
import tensorflow as tf


def dense(x, w, b=0.0, activation=None):
    y = x * w + b
    if activation is not None:
        y = activation(y)
    return y


x = tf.constant([-1.0, 0.5, 2.0])
w = tf.Variable(2.0)
b = tf.Variable(-0.5)

with tf.GradientTape() as tape:
    h = dense(x, w, b=b, activation=tf.nn.relu)
    out = dense(h, w)
    loss = tf.reduce_sum(out)

print(tape.gradient(loss, [w, b]))
