import tensorflow as tf

w = tf.Variable([1.0, 2.0])
b = tf.Variable(0.5)
x = tf.constant([3.0, -1.0])

with tf.GradientTape() as tape:
    h = w * x
    frozen = tf.stop_gradient(h)
    loss = tf.reduce_sum(frozen * b)

gw, gb = tape.gradient(loss, [w, b])
print(gw, gb)
