# https://github.com/tensorflow/tensorflow/issues/26625
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
indices = tf.compat.v1.placeholder(tf.int64, (None, 2))
values = tf.compat.v1.placeholder(tf.float32, (None,))
sparse_tensor = tf.sparse.SparseTensor(indices, values, (5, 7))
dense_tensor1 = tf.sparse.to_dense(sparse_tensor)
dense_tensor2 = tf.compat.v1.sparse_to_dense(indices, (5, 7), values)
dense_tensor3 = tf.sparse.add(tf.zeros((5, 7)), sparse_tensor)
dense_tensor4 = tf.sparse.sparse_dense_matmul(sparse_tensor, tf.ones((7, 5)))
sums = [tf.reduce_sum(d) for d in (dense_tensor1, dense_tensor2, dense_tensor3, dense_tensor4)]
grads = [tf.compat.v1.gradients(s, values)[0] for s in sums]
feed = {indices: np.array([[0, 1], [3, 2]]), values: np.array([2.0, -1.0], dtype="float32")}
with tf.compat.v1.Session() as sess:
    print(sess.run(grads, feed_dict=feed))
