# values: exact
# expect: call 0 source w: non_differentiable line 9
import tensorflow as tf

x = tf.constant([0.4, -1.6, 2.5])
w = tf.Variable(1.0)

with tf.GradientTape() as tape:
    positive = tf.cast(w * x > 0.0, tf.float32)
    loss = tf.reduce_sum(positive)

print(tape.gradient(loss, w))
