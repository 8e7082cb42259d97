import tensorflow as tf

a = tf.Variable(tf.ones(10), dtype=tf.float32)


@tf.function
def test_cond(cond_var):
    with tf.GradientTape(persistent=True) as g:
        if cond_var:
            loss = tf.reduce_sum(1.0 * a)
        else:
            loss = tf.reduce_sum(1.0 * a)
    gradient1 = g.gradient(loss, [a])
    gradient2 = g.gradient(loss, [a])
    return gradient1, gradient2


g1, g2 = test_cond(tf.constant(True))
print(g1, g2)
