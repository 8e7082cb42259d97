# values: exact
# note: TF1 graph mode: a keep_prob placeholder as dropout's rate (fed 1.0: nothing dropped), compute_gradients without var_list, clipped gradients given to apply_gradients, whose train op Session.run returns None
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=[None, 3], name="x")
y = tf.compat.v1.placeholder(tf.float32, shape=[None, 2], name="y")
keep_prob = tf.compat.v1.placeholder(tf.float32)
with tf.compat.v1.variable_scope("mlp"):
    w1 = tf.compat.v1.get_variable("w1", [3, 4], initializer=tf.compat.v1.constant_initializer(0.3))
    w2 = tf.compat.v1.get_variable("w2", [4, 2], initializer=tf.compat.v1.constant_initializer([0.5, -0.2, 0.1, 0.3, -0.4, 0.2, 0.6, -0.1]))
    b2 = tf.compat.v1.get_variable("b2", [2], initializer=tf.compat.v1.zeros_initializer())
h = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1)), rate=1 - keep_prob)
logits = tf.matmul(h, w2) + b2
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
total = loss + 0.01 * (tf.nn.l2_loss(w1) + tf.nn.l2_loss(w2))
global_step = tf.Variable(0, trainable=False, name="global_step")
opt = tf.compat.v1.train.AdamOptimizer(learning_rate=1e-3)
grads_and_vars = opt.compute_gradients(total)
clipped = [(tf.clip_by_norm(g, 1.0), v) for g, v in grads_and_vars if g is not None]
train_op = opt.apply_gradients(clipped, global_step=global_step)

data = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]], dtype=np.float32)
labels = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    _, value = sess.run([train_op, total], feed_dict={x: data, y: labels, keep_prob: 1.0})
    print(value)
