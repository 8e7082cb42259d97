# values: exact
# note: TF1 graph mode: the placeholders are fed with a batch computed only inside the session (after the graph is built); gradcli reads the program once to find the batch, then again with it
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

data = np.linspace(-1.0, 1.0, 24).reshape(8, 3).astype(np.float32)
targets = (data.sum(axis=1, keepdims=True) > 0).astype(np.float32)


def next_batch(step, size=4):
    start = step * size
    return data[start:start + size], targets[start:start + size]


X = tf.compat.v1.placeholder(tf.float32, [None, 3], name="X")
Y = tf.compat.v1.placeholder(tf.float32, [None, 1], name="Y")
W = tf.Variable(tf.ones([3, 1]) * 0.5, name="W")
b = tf.Variable(tf.zeros([1]), name="b")
logits = tf.matmul(X, W) + b
cost = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=Y, logits=logits))
train_op = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.5).minimize(cost)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    batch_x, batch_y = next_batch(1)
    _, c = sess.run([train_op, cost], feed_dict={X: batch_x, Y: batch_y})
    print(c)
