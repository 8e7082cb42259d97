import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=[None, 4])
y_ = tf.compat.v1.placeholder(tf.float32, shape=[None, 3])
w = tf.Variable(tf.ones([4, 3]) * 0.1)
b = tf.Variable(tf.zeros([3]))
y_conv = tf.matmul(x, w) + b
val = tf.compat.v1.nn.softmax_cross_entropy_with_logits(logits=y_, labels=y_conv)
cross_entropy = tf.reduce_mean(val)
train_step = tf.compat.v1.train.AdamOptimizer(1e-4).minimize(cross_entropy)
