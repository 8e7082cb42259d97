# values: exact
# expect: call 0 source x: connected
import tensorflow as tf


@tf.custom_gradient
def clip_gradient(x):
    def grad(dy):
        return tf.clip_by_value(dy, -0.5, 0.5)

    return tf.identity(x), grad


x = tf.Variable([1.0, -2.0, 3.0])

with tf.GradientTape() as tape:
    y = clip_gradient(x)
    loss = tf.reduce_sum(y * y)

print(tape.gradient(loss, x))  # 2x clipped to [-0.5, 0.5]
