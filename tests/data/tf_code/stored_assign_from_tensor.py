# values: exact
# note: w.assign(x * 2.0 + ...) inside the tape stores a copy: the later read of w is connected to w, not to x
# expect: call 0 source x: non_differentiable line 11
# expect: call 1 source w: connected
import tensorflow as tf

x = tf.Variable(3.0)
w = tf.Variable(0.0)
v = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    w.assign(x * 2.0 + tf.reduce_sum(v))
    loss = w * 3.0
print(tape.gradient(loss, x))
print(tape.gradient(loss, w))
