# values: exact
# note: EagerTensor has no .item() in TF 2.21 (AttributeError inside the tape, before any gradient call)
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
w = tf.Variable(0.5)

with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * x).item()

grad = tape.gradient(loss, w)
print(grad)
