# values: exact
# note: TF1 graph mode: a loss through argmax has no gradient for any variable; minimize raises TensorFlow's ValueError naming the variables and the loss tensor
# expect: call 0 source #0: non_differentiable line 14
# expect: call 0 source #1: non_differentiable line 14
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=[4, 3])
labels = tf.compat.v1.placeholder(tf.int64, shape=[4])
w = tf.Variable(tf.ones([3, 3]), name="weights")
b = tf.Variable(tf.zeros([3]), name="bias")
logits = tf.matmul(x, w) + b
predicted = tf.argmax(logits, axis=1)
errors = tf.cast(tf.not_equal(predicted, labels), tf.float32)
loss = tf.reduce_sum(errors)

train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(loss)

feed = {x: [[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [3.0, 1.0, 1.0], [0.0, 0.0, 1.0]], labels: [2, 1, 0, 2]}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(train_op, feed_dict=feed)
