# values: exact
# note: None / tf.newaxis add an axis of size 1 and ... stands for the axes not indexed, as in NumPy
# expect: call 0 source x: connected
# expect: call 0 source y: connected
import tensorflow as tf

x = tf.Variable([[1.0, 3.0], [4.0, 2.0]], dtype=tf.float64)
y = tf.Variable([[[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]], dtype=tf.float64)

with tf.GradientTape() as tape:
    outer = x[:, None, :] * x[None, ...] * x[..., 0, tf.newaxis, None]
    picked = tf.sin(y[..., 1]) + y[0, ..., ::2][..., None, 0]
    loss = tf.reduce_sum(outer) + tf.reduce_sum(picked * x[None, :, 0])

grads = tape.gradient(loss, [x, y])
