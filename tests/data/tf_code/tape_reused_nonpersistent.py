# values: exact
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.Variable(3.0)

with tf.GradientTape() as tape:
    y = x * x
    z = y * y

dz_dx = tape.gradient(z, x)  # 4 * x**3 = 108
dy_dx = tape.gradient(y, x)  # RuntimeError: the tape was not persistent
print(dz_dx, dy_dx)
