import tensorflow as tf

m = tf.constant([[0.5, 0.1], [0.2, 0.3]])


@tf.function
def func(x):
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = tf.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, tf.matmul(p, x)), (0, m))[1]
            s = tf.reduce_sum(y)
        dy_dx = t1.gradient(s, x)
        d = tf.reduce_sum(dy_dx)
    return t2.gradient(d, x)


print(func(tf.constant([[1.0, 2.0], [3.0, 4.0]])))
