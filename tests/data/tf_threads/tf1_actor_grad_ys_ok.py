import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

inputs = tf.compat.v1.placeholder(tf.float32, [None, 2])
action_gradient = tf.compat.v1.placeholder(tf.float32, [None, 1])
network_params = [tf.Variable([[0.3], [-0.7]]), tf.Variable([0.2])]
scaled_out = 2.0 * tf.tanh(tf.matmul(inputs, network_params[0]) + network_params[1])
actor_gradients = tf.gradients(scaled_out, network_params, -action_gradient)
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    feed = {inputs: np.array([[1.0, 0.5], [-1.0, 2.0]], np.float32), action_gradient: [[0.5], [1.0]]}
    print(sess.run(actor_gradients, feed_dict=feed))
