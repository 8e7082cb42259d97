import tensorflow as tf

x0 = tf.Variable(1.0)
x1 = tf.constant(3.0)
x = x0 + x1
y = tf.constant(4.0)
with tf.GradientTape() as tape:
    z = x + y
print(tape.gradient(z, x))
