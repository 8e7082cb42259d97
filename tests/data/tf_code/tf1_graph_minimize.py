# values: exact
# note: TF1 graph mode: minimize(loss, var_list=) makes the gradient tensors of tf.gradients(loss, var_list); Session.run of the train op evaluates them at the feeds (recorded before the update) and returns None
# expect: call 0 source w: connected
# expect: call 0 source b: connected
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=(None, 2))
y = tf.compat.v1.placeholder(tf.float32, shape=(None, 1))
w = tf.Variable([[0.5], [-1.0]], name="w")
b = tf.Variable([0.25], name="b")
pred = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.square(pred - y))

optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=0.01)
train_op = optimizer.minimize(loss, var_list=[w, b])

feed = {x: np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]]), y: [[1.0], [0.0], [2.0]]}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    result = sess.run(train_op, feed_dict=feed)
    print(result)  # None
