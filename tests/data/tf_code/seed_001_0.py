import tensorflow as tf

# Simple example with a conditional operation
x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as tape:
    z = tf.cond(x > 0, lambda: x * y, lambda: 0.0)
    loss = z # Assume this is part of a bigger loss

gradients = tape.gradient(loss, [x, y], unconnected_gradients='zero')

print(f"Gradient w.r.t. x: {gradients[0]}")  # Expected: 3.0
print(f"Gradient w.r.t. y: {gradients[1]}")  # Expected: 2.0

x.assign(-1.0)

with tf.GradientTape() as tape:
    z = tf.cond(x > 0, lambda: x * y, lambda: 0.0)
    loss = z

gradients = tape.gradient(loss, [x, y], unconnected_gradients='zero')

print(f"Gradient w.r.t. x: {gradients[0]}")  # Expected: 0.0 (unconnected)
print(f"Gradient w.r.t. y: {gradients[1]}") # Expected: 0.0 (unconnected)

# values: exact
# note: second tape.gradient raises: the false branch returns the Python float 0.0
# expect: call 0 source x: connected
# expect: call 0 source y: connected
