# https://github.com/tensorflow/tensorflow/issues/28966
import numpy as np
import tensorflow as tf


class SparseDense(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(3,), initializer="ones", name="sparse_values")
        self.kernel = tf.sparse.SparseTensor([[0, 0], [1, 1], [2, 0]], self.w, [3, 2])

    def call(self, x):
        return tf.sparse.sparse_dense_matmul(x, self.kernel)


layer = SparseDense()
x = tf.constant(np.arange(6, dtype="float32").reshape(2, 3))
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x))
    print(step, tape.gradient(loss, layer.trainable_variables))
