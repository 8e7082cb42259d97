# values: exact
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)

with tf.GradientTape() as tape:
    y = x * x  # a vector target

weights = tf.constant([1.0, 0.5, -1.0], dtype=tf.float64)
grad = tape.gradient(y, x, output_gradients=weights)
print(grad)  # weights * 2x = [2, 2, -6]
