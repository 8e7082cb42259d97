# values: exact
# expect: call 0 source x: connected
# expect: call 1 source x: connected
import tensorflow as tf

x = tf.Variable(3.0)

with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        y = x ** 3
    dy_dx = inner.gradient(y, x)  # 3x^2 = 27
d2y_dx2 = outer.gradient(dy_dx, x)  # 6x = 18
print(dy_dx, d2y_dx2)
