# https://github.com/tensorflow/tensorflow/issues/29971
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
w = tf.Variable(np.array([[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.2, 0.9]], dtype="float32"))
scores = 2.0 * w
top = tf.math.top_k(scores, k=2)
loss = tf.reduce_sum(top.values)
grads = tf.compat.v1.gradients(loss, [w])
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    print(sess.run(grads))
