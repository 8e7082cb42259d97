import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

X = tf.compat.v1.placeholder(tf.float32, shape=(4, None))
Z = tf.norm(X, ord="euclidean", axis=1, name="logit")
var_grad = tf.gradients(Z, [X])

with tf.compat.v1.Session() as sess:
    X_ = np.array([[1], [0], [1e-16], [1e-19]], dtype=np.float32)
    sess.run(tf.compat.v1.global_variables_initializer())
    print(sess.run((Z, var_grad), feed_dict={X: X_}))
