import tensorflow as tf

# Define variables
x = tf.Variable(3.0, name='x', dtype=tf.float32)
y = tf.Variable(2.0, name='y', dtype=tf.float32)

# Define operations
with tf.GradientTape() as tape:
  z = x**2 + y*x - 3*y

# Calculate gradients of z with respect to x and y
gradients = tape.gradient(z, [x, y])

print(f"Gradient of z with respect to x: {gradients[0]}")
print(f"Gradient of z with respect to y: {gradients[1]}")

# values: exact
# note: the article prints -1.0 for dz/dy; it is x - 3 = 0.0
# expect: call 0 source x: connected
# expect: call 0 source y: connected
