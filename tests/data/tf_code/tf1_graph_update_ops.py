# values: exact
# note: TF1 graph mode: the batch-norm idiom (minimize under control_dependencies on the UPDATE_OPS collection, empty here), get_collection of the trainable variables as var_list; tf.compat.v1.layers is not available with Keras 3 (TensorFlow's AttributeError)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
tf.compat.v1.reset_default_graph()
tf.compat.v1.set_random_seed(0)

x = tf.compat.v1.placeholder(tf.float32, [None, 2])
y = tf.compat.v1.placeholder(tf.float32, [None])
with tf.compat.v1.variable_scope("linear", reuse=tf.compat.v1.AUTO_REUSE):
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.compat.v1.constant_initializer(0.5))
pred = tf.squeeze(tf.compat.v1.matmul(x, w) + b, axis=1)
loss = tf.compat.v1.losses.mean_squared_error(y, pred)

update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
with tf.control_dependencies(update_ops):
    train_vars = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES, scope="linear")
    train_op = tf.compat.v1.train.MomentumOptimizer(0.01, 0.9).minimize(loss, var_list=train_vars)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(train_op, feed_dict={x: [[1.0, 2.0], [0.5, -1.0]], y: [2.0, 1.0]})

hidden = tf.compat.v1.layers.dense(x, 4)
