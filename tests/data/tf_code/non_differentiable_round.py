# values: exact
# expect: call 0 source w: non_differentiable line 9
import tensorflow as tf

x = tf.constant([0.4, 1.6, 2.5])
w = tf.Variable(1.3)

with tf.GradientTape() as tape:
    q = tf.round(w * x)
    loss = tf.reduce_sum(q * q)

print(tape.gradient(loss, w))
