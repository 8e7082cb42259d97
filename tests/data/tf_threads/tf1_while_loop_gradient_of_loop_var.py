import tensorflow as tf

tf.compat.v1.disable_eager_execution()

i = tf.constant(0)
a = tf.constant(3.0)
b = tf.constant(5.0)
print("External gradient:", tf.gradients(a, a)[0])


def loop_body(i, a, b):
    print("internal gradient:", tf.gradients(b, a)[0])
    return i + 1, b, b**2


tf.compat.v1.while_loop(lambda i, a, b: tf.less(i, 5), loop_body, [i, a, b])
