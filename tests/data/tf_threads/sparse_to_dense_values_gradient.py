# https://github.com/tensorflow/tensorflow/issues/6391
import tensorflow as tf

indices = tf.constant([[0, 1], [2, 3]], dtype=tf.int64)
values = tf.constant([1.5, -2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(values)
    sparse_tensor = tf.sparse.SparseTensor(indices, values, [3, 4])
    dense1 = tf.sparse.to_dense(sparse_tensor)
    dense2 = tf.sparse.add(tf.zeros([3, 4]), sparse_tensor)
    sum1 = tf.reduce_sum(dense1 * dense1)
    sum2 = tf.reduce_sum(dense2 * dense2)
print(tape.gradient(sum1, values))
print(tape.gradient(sum2, values))
