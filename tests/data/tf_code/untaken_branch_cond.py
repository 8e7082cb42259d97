# values: exact
# expect: call 0 source w_pos: connected
# expect: call 0 source w_neg: untaken_branch line 11
import tensorflow as tf

x = tf.constant(2.0)
w_pos = tf.Variable(3.0)
w_neg = tf.Variable(-1.0)

with tf.GradientTape() as tape:
    y = tf.cond(x > 0, lambda: w_pos * x, lambda: w_neg * x)

print(tape.gradient(y, [w_pos, w_neg]))
