# https://github.com/tensorflow/tensorflow/issues/43107
import tensorflow as tf

x = tf.constant([[1.0, 2.0], [3.0, 4.0], [-1.0, 2.0], [3.0, -4.0]])
with tf.GradientTape() as g:
    g.watch(x)
    w_ragged = tf.RaggedTensor.from_value_rowids(x, [0, 0, 1, 1])
    y = tf.reduce_mean(w_ragged, axis=1)
print(g.gradient(y, x))
