import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
np.random.seed(0)

obs = tf.compat.v1.placeholder(tf.float32, shape=(None, 3))
w = tf.Variable(np.full((3, 1), 2.0, dtype="float32"))
normalized_critic = tf.matmul(obs, w)
critic_with_actor = tf.clip_by_value(normalized_critic, -1.0, 1.0)
actor_loss = -tf.reduce_mean(critic_with_actor)
grads = tf.gradients(actor_loss, [w])
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    print(sess.run(grads, feed_dict={obs: np.random.rand(2, 3) + 0.5}))
