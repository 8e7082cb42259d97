# values: exact
# note: TF1 graph mode builds a while_loop's body once, over placeholders of the loop
# note: variables: tf.gradients(b, a) there is None (the reader unrolls the loop: refused)
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
a = tf.constant(3.0)
b = tf.constant(5.0)


def body(i, a, b):
    grad = tf.gradients(b, a)[0]
    return i + 1, b, b * 2.0


out = tf.compat.v1.while_loop(lambda i, a, b: i < 3, body, [tf.constant(0), a, b])
