# values: exact
# note: tf.gradients is graph-only: in eager mode it raises before returning anything
import tensorflow as tf

x = tf.Variable(2.0)
y = x * x + 3.0 * x

grad = tf.gradients(y, x)[0]
print(grad)
