# values: exact
# note: the outer custom gradient's grad function replaces everything below it
import tensorflow as tf


@tf.custom_gradient
def outer(x):
    @tf.custom_gradient
    def inner(y):
        def grad_inner(dy):
            return dy * 3.0

        return y * 3.0, grad_inner

    z = inner(x)

    def grad(dz):
        return dz * 2.0

    return z * z, grad


x = tf.Variable(1.5)
with tf.GradientTape() as tape:
    loss = outer(x)
g = tape.gradient(loss, x)
