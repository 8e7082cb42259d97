# values: exact
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.Variable(1.5, dtype=tf.float64)

with tf.GradientTape() as tape:
    y = tf.constant(1.0, dtype=tf.float64)
    for i in range(3):
        y = y * x + i

print(tape.gradient(y, x))  # y = x^3 + x + 2, dy/dx = 3x^2 + 1
