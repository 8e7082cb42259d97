# values: exact
# expect: call 0 source x: not_watched line 5
import tensorflow as tf

x = tf.constant(3.0)

with tf.GradientTape() as tape:
    y = x * x + 2.0 * x

dy_dx = tape.gradient(y, x)
print(dy_dx)  # None: a constant is not watched
