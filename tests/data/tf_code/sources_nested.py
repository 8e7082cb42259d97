# values: exact
# expect: call 0 source w1: connected
# expect: call 0 source b1: connected
# expect: call 0 source w2: connected
# expect: call 0 source unused: no_path
import tensorflow as tf

w1 = tf.Variable(2.0)
b1 = tf.Variable(1.0)
w2 = tf.Variable(-1.0)
unused = tf.Variable(7.0)

with tf.GradientTape() as tape:
    h = w1 * 3.0 + b1
    out = w2 * h

grads = tape.gradient(out, [(w1, b1), [w2, unused]])
(g_w1, g_b1), (g_w2, g_unused) = grads
print(g_w1, g_b1, g_w2, g_unused)
