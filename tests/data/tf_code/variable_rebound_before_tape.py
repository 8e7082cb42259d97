# values: exact
# note: `w` is rebound to a tensor before the tape starts; a tensor is not watched, so the gradient is None
# expect: call 0 source w: not_watched line 7
import tensorflow as tf

w = tf.Variable(2.0)
w = w * 0.5  # w is now a plain tensor, not the variable
x = tf.constant(3.0)

with tf.GradientTape() as tape:
    loss = w * x

print(tape.gradient(loss, w))
