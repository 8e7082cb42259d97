# values: exact
# expect: call 0 source x: connected
# expect: call 0 source z: no_path
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float64, shape=(3,))
z = tf.compat.v1.placeholder(tf.float64, shape=(3,))
y = x * x + 1.0

upstream = tf.constant([1.0, 0.5, -2.0], dtype=tf.float64)
grads = tf.gradients(y, [x, z], grad_ys=upstream)
valid = [g for g in grads if g is not None]

with tf.compat.v1.Session() as sess:
    feed = {x: np.array([1.0, 2.0, 3.0]), z: np.zeros(3)}
    print(sess.run(valid, feed_dict=feed))  # [2x * upstream] = [[2, 2, -12]]
