# values: exact
# note: tf.clip_by_global_norm returns (clipped list, global norm), the norm from l2_loss as TensorFlow computes it; a None in the list stays None; the second call's norm is below clip_norm (scale 1, still differentiated through the minimum)
# expect: call 0 source a: connected
# expect: call 0 source b: connected
# expect: call 1 source a: connected
import tensorflow as tf

a = tf.Variable([3.0, 4.0])
b = tf.Variable([[1.0, 2.0], [2.0, 4.0]])

with tf.GradientTape(persistent=True) as tape:
    (ca, none, cb), norm = tf.clip_by_global_norm([a, None, b], 2.5)
    loss = tf.reduce_sum(ca * [1.0, -1.0]) + tf.reduce_sum(cb) + norm
    small, norm2 = tf.clip_by_global_norm([a * 0.1], clip_norm=tf.constant(10.0))
    loss2 = tf.reduce_sum(small[0] * [2.0, 1.0]) + tf.linalg.global_norm([a, b])

print(norm, tape.gradient(loss, [a, b]))
print(norm2, tape.gradient(loss2, a))
