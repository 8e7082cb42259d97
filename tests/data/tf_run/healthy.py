import tensorflow as tf

w = tf.Variable([[0.5, -0.25], [1.0, 0.75]])
b = tf.Variable([0.1, -0.1])
x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])

with tf.GradientTape() as tape:
    y = tf.tanh(tf.matmul(x, w) + b)
    loss = tf.reduce_mean(y**2)

gw, gb = tape.gradient(loss, [w, b])
print(gw.numpy(), gb.numpy())
