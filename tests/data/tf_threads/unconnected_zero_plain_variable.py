import tensorflow as tf

x = tf.Variable(3.0)
y = tf.Variable(2.0)
with tf.GradientTape() as tape:
    z = x**2
dz = tape.gradient(z, [x, y], unconnected_gradients=tf.UnconnectedGradients.ZERO)
print(dz)
