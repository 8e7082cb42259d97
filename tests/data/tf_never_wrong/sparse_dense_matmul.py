# values: exact
# note: a sparse constant times a dense variable
import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
sp = tf.sparse.SparseTensor(indices=[[0, 0], [1, 1]], values=[2.0, 3.0], dense_shape=[2, 2])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.sparse.sparse_dense_matmul(sp, w))
g = tape.gradient(loss, w)
