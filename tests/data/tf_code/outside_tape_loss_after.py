# values: exact
# expect: call 0 source w: outside_tape line 11
import tensorflow as tf

x = tf.constant([[1.0, 2.0]])
w = tf.Variable([[0.5], [-0.5]])

with tf.GradientTape() as tape:
    pred = tf.matmul(x, w)

loss = tf.reduce_mean(tf.square(pred - 1.0))  # computed after the tape closed
grad = tape.gradient(loss, w)
print(grad)
