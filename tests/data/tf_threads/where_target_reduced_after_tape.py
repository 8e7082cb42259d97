import tensorflow as tf

x = tf.Variable([-1.0, 2.0, -3.0])

with tf.GradientTape() as tape:
    y = tf.where(x > 0, x, x * x)

grad = tape.gradient(tf.reduce_sum(y), x)

print("y:", y.numpy())
print("grad:", grad)
