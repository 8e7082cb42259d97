import tensorflow as tf

tf.compat.v1.disable_eager_execution()


def cond(i, var):
    return tf.less(i, 1)


def body(i, var):
    return [tf.add(i, 1), var]


i = tf.constant(0)
var = tf.Variable(tf.constant(2.0))
_, looped = tf.while_loop(cond, body, [i, var])
out = looped * looped
optimizer_op = tf.compat.v1.train.GradientDescentOptimizer(0.9).minimize(out)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for _ in range(2):
        print(sess.run([out, optimizer_op]))
