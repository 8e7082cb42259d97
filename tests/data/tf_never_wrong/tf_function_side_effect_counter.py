# values: exact
# note: refused: counter[0] += 1 runs once, at the trace; the later calls run the graph
# note: traced with counter[0] == 1, so TensorFlow's gradients are 1, 1, 1
import tensorflow as tf

w = tf.Variable(2.0)
counter = [0]


@tf.function
def step(x):
    counter[0] += 1
    return w * x * counter[0]


for i in range(3):
    with tf.GradientTape() as tape:
        loss = step(tf.constant(1.0))
    g = tape.gradient(loss, w)
