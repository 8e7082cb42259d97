# values: exact
# note: the same signature three times, nothing outside changes: the traced graph computes
# note: what the Python does
import tensorflow as tf

w = tf.Variable(2.0)
factor = 3.0


@tf.function
def step(x):
    history = []
    history.append(x * factor)
    return w * history[0]


for k in range(3):
    with tf.GradientTape() as tape:
        loss = step(tf.constant(float(k)))
    g = tape.gradient(loss, w)
    w.assign_add(1.0)
