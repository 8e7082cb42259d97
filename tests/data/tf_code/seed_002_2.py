import tensorflow as tf

@tf.custom_gradient
def custom_relu(x):
    def grad(dy):
        return dy * tf.cast(x > 0, tf.float32) * 2 # Example Custom Gradient
    return tf.nn.relu(x), grad


# Define variable
x = tf.Variable(tf.random.normal((3,)))

# Perform calculations
with tf.GradientTape() as tape:
  y = custom_relu(x)
  z = tf.reduce_sum(y)

# Calculate gradients
gradients = tape.gradient(z, x)

print(f"Gradient of z with respect to x:\n {gradients}")

# values: structure
# expect: call 0 source x: connected
