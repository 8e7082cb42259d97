import tensorflow as tf

# Example with tf.stop_gradient
x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as tape:
    z = tf.stop_gradient(x) * y  # stop gradient through x
    loss = z # Assume this is part of a bigger loss

gradients = tape.gradient(loss, [x, y], unconnected_gradients='zero')

print(f"Gradient w.r.t. x: {gradients[0]}")  # Expected: 0.0 (unconnected)
print(f"Gradient w.r.t. y: {gradients[1]}")  # Expected: 2.0

# values: exact
# expect: call 0 source x: stop_gradient line 8
# expect: call 0 source y: connected
