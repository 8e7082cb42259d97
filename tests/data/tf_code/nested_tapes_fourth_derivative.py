# values: exact
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 2 source x: connected
# expect: call 3 source x: connected
# expect: call 3 source y: connected
# expect: call 3 source z: no_path
import tensorflow as tf

x = tf.Variable(0.75, dtype=tf.float64)
y = tf.Variable(2.0, dtype=tf.float64)
z = tf.Variable(-1.5, dtype=tf.float64)

with tf.GradientTape() as t4:
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                f = tf.sin(x) * y + tf.math.log(y) * x + z * x
            d1 = t1.gradient(f, x)  # cos(x) y + log(y) + z
        d2 = t2.gradient(d1, x)  # -sin(x) y: z is gone
    d3 = t3.gradient(d2, x)  # -cos(x) y
d4 = t4.gradient(d3, [x, y, z])  # sin(x) y; -cos(x) for y; None for z
print(d1, d2, d3, d4)
