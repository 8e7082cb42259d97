# values: exact
# note: the stable custom gradient from the tf.custom_gradient docs, in float64 at a large input
# expect: call 0 source x: connected
import tensorflow as tf


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


x = tf.constant([0.0, 100.0], dtype=tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(log1pexp(x))

print(tape.gradient(y, x))  # [0.5, 1.0]
