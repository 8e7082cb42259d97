# values: exact
# note: refused: h, kept in a list inside the traced call, is a graph tensor out of scope
# note: after it: TensorFlow fails with a TypeError on the line that uses it
import tensorflow as tf

acts = []


@tf.function
def f(x):
    h = tf.tanh(x)
    acts.append(h)
    return tf.reduce_sum(h * h)


x = tf.constant([0.5, -1.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    loss = f(x) + tf.reduce_sum(acts[0])
g = tape.gradient(loss, x)
