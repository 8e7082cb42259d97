# values: exact
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 2 source x: connected
import tensorflow as tf

x = tf.Variable([0.5, -1.25], dtype=tf.float64)

with tf.GradientTape() as t3:
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = tf.reduce_sum(x * x * x * x + tf.exp(x))
        g1 = t1.gradient(y, x)  # 4 x^3 + exp(x)
    g2 = t2.gradient(g1, x)  # 12 x^2 + exp(x) (the Hessian is diagonal)
g3 = t3.gradient(g2, x)  # 24 x + exp(x)
print(g1, g2, g3)
