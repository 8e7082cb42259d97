# values: exact
# note: a Python number argument is part of the signature: each new value traces again
import tensorflow as tf

w = tf.Variable(2.0)


@tf.function
def step(x, scale):
    return w * x * scale


for scale in (1.0, 5.0, 1.0):
    with tf.GradientTape() as tape:
        loss = step(tf.constant(1.0), scale)
    g = tape.gradient(loss, w)
