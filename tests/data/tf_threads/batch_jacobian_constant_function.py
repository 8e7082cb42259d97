import tensorflow as tf


@tf.function
def foo(val):
    return tf.constant([[3.0], [4.0]], dtype=tf.dtypes.float64)


c = tf.constant([[1.0], [2.0]], dtype=tf.dtypes.float64)
with tf.GradientTape() as g:
    g.watch(c)
    f = foo(c)
print(g.batch_jacobian(f, c))
