import tensorflow as tf

x = tf.Variable([-1.0, 0.0, 2.0])

with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.nn.relu(x))

g = tape.gradient(y, x)
