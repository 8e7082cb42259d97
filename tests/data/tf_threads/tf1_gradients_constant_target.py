import tensorflow as tf

tf.compat.v1.disable_eager_execution()

v = tf.Variable(0.0)
c = tf.constant(5.0)
grads = tf.gradients(c, v)
print(grads)
