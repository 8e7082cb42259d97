# values: exact
# note: refused: scale is baked into the graph at the first trace; the second call runs that
# note: graph, so TensorFlow's second gradient is 1, not 5
import tensorflow as tf

w = tf.Variable(2.0)
scale = 1.0


@tf.function
def step(x):
    return w * x * scale


with tf.GradientTape() as tape:
    loss = step(tf.constant(1.0))
g = tape.gradient(loss, w)
scale = 5.0
with tf.GradientTape() as tape2:
    loss2 = step(tf.constant(1.0))
g2 = tape2.gradient(loss2, w)
