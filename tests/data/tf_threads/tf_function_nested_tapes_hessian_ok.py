# https://github.com/tensorflow/tensorflow/issues/42845
import tensorflow as tf


@tf.function()
def G(x, c):
    xx = tf.transpose(a=x[:, :, None], perm=[0, 2, 1])
    cc = tf.transpose(a=c[:, :, None], perm=[2, 0, 1])
    return tf.reduce_sum(input_tensor=tf.square(xx - cc), axis=2)


@tf.function()
def ff(x, c, v):
    with tf.GradientTape(persistent=True) as t1:
        t1.watch(x)
        with tf.GradientTape(persistent=True) as t2:
            t2.watch(x)
            y = tf.matmul(G(x, c), v)
        dy = t2.gradient(y, x)
    return t1.gradient(dy, x)


x = tf.constant([[1.0, 2.0], [0.5, -1.0]])
c = tf.constant([[0.0, 1.0], [2.0, 0.5], [1.0, 1.0]])
v = tf.constant([[1.0], [2.0], [-1.0]])
print(ff(x, c, v))
