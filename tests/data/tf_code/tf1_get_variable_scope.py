# values: exact
# note: TF1 graph mode: variable scopes name the variables (layer/w); reuse=True returns the same variable, so both uses of w are one source
# expect: call 0 source w: connected
# expect: call 0 source b: connected
# expect: call 0 source frozen: no_path
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=[2])


def dense(inputs):
    w = tf.compat.v1.get_variable("w", shape=[2], initializer=tf.compat.v1.constant_initializer(0.5))
    b = tf.compat.v1.get_variable("b", shape=[], initializer=tf.zeros_initializer())
    return tf.reduce_sum(inputs * w) + b


with tf.compat.v1.variable_scope("layer"):
    y1 = dense(x)
with tf.compat.v1.variable_scope("layer", reuse=True):
    y2 = dense(x * 2.0)
    w = tf.compat.v1.get_variable("w")
    b = tf.compat.v1.get_variable("b")
with tf.compat.v1.variable_scope("head"):
    frozen = tf.compat.v1.get_variable(
        "frozen", initializer=tf.constant([1.0, 2.0]), trainable=False
    )
loss = y1 * y2

grads = tf.gradients(loss, [w, b, frozen])
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    print(w.name, sess.run(grads[:2], feed_dict={x: [1.0, -3.0]}))
