# values: exact
# note: an outer tape differentiates the result of an inner tape.jacobian
# expect: call 1 source x: connected
# expect: call 1 source unused: no_path
import tensorflow as tf

x = tf.Variable([1.0, 2.0, -1.5])
unused = tf.Variable(3.0)

with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        y = tf.stack([x[0] * x[1], tf.sin(x[2]) * x[0], x[1] ** 3])
    j = inner.jacobian(y, x)
    s = tf.reduce_sum(j * j)

print(j)
print(outer.gradient(s, [x, unused]))
