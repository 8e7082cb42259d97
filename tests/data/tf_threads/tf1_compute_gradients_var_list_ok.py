import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

states = tf.compat.v1.placeholder(tf.float32, [None, 3])
theta_p = [tf.Variable([[0.5], [-0.25], [1.0]]), tf.Variable([0.1])]
action = tf.tanh(tf.matmul(states, theta_p[0]) + theta_p[1])
loss_p = -tf.reduce_mean(action)
optim_p = tf.compat.v1.train.AdamOptimizer(1e-3)
grads_and_vars_p = optim_p.compute_gradients(loss_p, var_list=theta_p)
optimize_p = optim_p.apply_gradients(grads_and_vars_p)
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    feed = {states: np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 1.5]], dtype=np.float32)}
    print(sess.run([g for g, _ in grads_and_vars_p], feed_dict=feed))
