# values: exact
# note: refused: tf.gradients is valid inside @tf.function (it differentiates the graph)
import tensorflow as tf

w = tf.Variable(3.0)


@tf.function
def grad():
    loss = w * w
    return tf.gradients(loss, [w])


g = grad()
