# values: exact
# note: EagerTensor has no .tolist() in TF 2.21
import tensorflow as tf

w = tf.Variable([0.5, -1.0])

with tf.GradientTape() as tape:
    values = (w * 2.0).tolist()
    loss = tf.reduce_sum(tf.constant(values))

print(tape.gradient(loss, w))
