# values: exact
# note: inside the tape `w` is rebound to the tensor w + 1.0; the gradient is taken w.r.t. that tensor, which is on the tape, so it is connected (the variable itself is no longer named)
# expect: call 0 source w: connected
import tensorflow as tf

w = tf.Variable(2.0)
x = tf.constant(3.0)

with tf.GradientTape() as tape:
    w = w + 1.0
    loss = w * w * x

grad = tape.gradient(loss, w)
print(grad)  # d(loss)/d(w + 1.0) = 2 * 3.0 * 3.0 = 18
