# values: exact
# note: MaxPoolGrad takes the pool's output: the second derivative's zeros flow back through
# note: it, so the third derivative is a connected zero, not None
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 2 source x: connected
import tensorflow as tf

x = tf.Variable([[[[0.5], [-1.25]], [[2.0], [0.75]]]], dtype=tf.float64)

with tf.GradientTape() as t3:
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = tf.reduce_sum(tf.nn.max_pool2d(x, 2, 1, "SAME") * 3.0)
        g1 = t1.gradient(y, x)
    g2 = t2.gradient(g1, x)  # zeros, connected
g3 = t3.gradient(g2, x)  # zeros, connected (None before gradcli followed MaxPoolGrad's inputs)
print(g1, g2, g3)
