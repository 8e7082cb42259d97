# values: exact
# expect: call 0 source x: connected
# expect: call 1 source x: connected
import tensorflow as tf

x = tf.Variable(3.0)

with tf.GradientTape(persistent=True) as tape:
    y = x * x
    z = y * y

dz_dx = tape.gradient(z, x)  # 108.0
dy_dx = tape.gradient(y, x)  # 6.0
del tape
print(dz_dx, dy_dx)
