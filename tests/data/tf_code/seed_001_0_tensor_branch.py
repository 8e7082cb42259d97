import tensorflow as tf

# Simple example with a conditional operation
x = tf.Variable(2.0)
y = tf.Variable(3.0)

with tf.GradientTape() as tape:
    z = tf.cond(x > 0, lambda: x * y, lambda: tf.constant(0.0))
    loss = z # Assume this is part of a bigger loss

gradients = tape.gradient(loss, [x, y], unconnected_gradients='zero')

print(f"Gradient w.r.t. x: {gradients[0]}")  # Expected: 3.0
print(f"Gradient w.r.t. y: {gradients[1]}")  # Expected: 2.0

x.assign(-1.0)

with tf.GradientTape() as tape:
    z = tf.cond(x > 0, lambda: x * y, lambda: tf.constant(0.0))
    loss = z

gradients = tape.gradient(loss, [x, y], unconnected_gradients='zero')

print(f"Gradient w.r.t. x: {gradients[0]}")  # Expected: 0.0 (unconnected)
print(f"Gradient w.r.t. y: {gradients[1]}") # Expected: 0.0 (unconnected)

# values: exact
# note: seed_001_0 with tf.constant(0.0) as the false branch (not in the article)
# expect: call 0 source x: connected
# expect: call 0 source y: connected
# expect: call 1 source x: untaken_branch line 19
# expect: call 1 source y: untaken_branch line 19
