# https://github.com/tensorflow/tensorflow/issues/6998
import tensorflow as tf

v = tf.Variable([0.5, -1.0, 2.0])
with tf.GradientTape() as tape:
    values = 3.0 * v
    m = tf.sparse.SparseTensor([[0, 0], [1, 2], [2, 1]], values, [3, 3])
print(tape.gradient(m, v))
