import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
w = tf.Variable(2.0)

with tf.GradientTape() as tape:
    y = tf.reduce_sum(w * x * x)

gx, gw = tape.gradient(y, [x, w])
print(gx, gw)
