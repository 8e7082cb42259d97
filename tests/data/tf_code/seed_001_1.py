import tensorflow as tf
import numpy as np

# Example with masking
x = tf.Variable(tf.random.normal((5, 5)))
mask = tf.constant(np.array([[0, 1, 0, 0, 0],
                             [0, 0, 1, 0, 0],
                             [0, 0, 0, 1, 0],
                             [0, 0, 0, 0, 1],
                             [1, 0, 0, 0, 0]], dtype=np.float32))
with tf.GradientTape() as tape:
  masked_x = x * mask
  loss = tf.reduce_sum(masked_x)

gradients = tape.gradient(loss, x, unconnected_gradients='zero')

print("Original x:")
print(x.numpy())
print("\nMask:")
print(mask.numpy())
print("\nGradients for x:")
print(gradients.numpy())

# values: exact
# note: x is random but the gradient is the mask whatever x is
# expect: call 0 source x: connected
