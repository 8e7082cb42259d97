import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

params = tf.constant(np.array([[1, 2], [3, 4]]))
indices = tf.constant(np.array([[[0, 0], [0, 1]], [[1, 1], [0, 1]]]))
with tf.compat.v1.Session() as sess:
    out_1 = tf.gather_nd(params=params, indices=indices)
    print(sess.run(out_1))
    gradients = tf.gradients(ys=out_1, xs=indices)
    print(gradients)
