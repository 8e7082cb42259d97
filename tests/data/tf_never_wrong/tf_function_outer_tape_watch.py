# values: exact
# note: refused: tape.watch inside the traced call watches the graph's placeholder, so the
# note: outer tape's gradient with respect to the eager x is None in TensorFlow
import tensorflow as tf


@tf.function
def f(x, tape):
    tape.watch(x)
    return tf.reduce_sum(x * x)


x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    y = f(x, tape)
g = tape.gradient(y, x)
