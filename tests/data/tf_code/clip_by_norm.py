# values: exact
# note: tf.clip_by_norm is TensorFlow's Python composition (a safe square root at a zero norm, clip_norm below 0 taken as 0); its gradient is autodiff of it: the clipped and the unclipped rows, axes, and an all-zero tensor
# expect: call 0 source x: connected
# expect: call 0 source z: connected
# expect: call 0 source c: connected
import tensorflow as tf

x = tf.Variable([[3.0, 4.0], [0.3, 0.4]], dtype=tf.float64)
z = tf.Variable([0.0, 0.0], dtype=tf.float64)
c = tf.Variable(2.0, dtype=tf.float64)

with tf.GradientTape() as tape:
    rows = tf.clip_by_norm(x, 1.0, axes=[1])
    whole = tf.clip_by_norm(x, c)
    zero = tf.clip_by_norm(z, 1.0)
    negative = tf.clip_by_norm(x, -1.0)
    loss = (
        tf.reduce_sum(rows * [[1.0, 2.0], [3.0, 4.0]])
        + tf.reduce_sum(whole**2)
        + tf.reduce_sum(zero)
        + tf.reduce_sum(negative)
    )

print(tape.gradient(loss, [x, z, c]))
