import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, name="x_input", shape=[None, 3])
pred = tf.reduce_sum(tf.pow(x, 2), [1])
baseline = tf.zeros_like(x)
inter = baseline + 0.5 * (x - baseline)
grads = tf.gradients(ys=pred, xs=inter)
print(grads)

with tf.compat.v1.Session() as sess:
    print(sess.run(pred, {x: np.ones((2, 3), dtype=np.float32)}))
