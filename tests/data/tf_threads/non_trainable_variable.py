import tensorflow as tf

x = tf.Variable(3.0, trainable=False)
with tf.GradientTape() as tape:
    y = x**2
dy_dx = tape.gradient(y, x)
print(dy_dx)
