# values: exact
# note: TF1 graph mode: compute_gradients keeps None for a variable the loss does not use; the user fetches the others
# expect: call 0 source w: connected
# expect: call 0 source bias: no_path
# expect: call 0 source scale: connected
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float64, shape=[3])
w = tf.Variable([1.0, 2.0, -0.5], dtype=tf.float64)
bias = tf.Variable(0.1, dtype=tf.float64)  # never used by the loss
scale = tf.Variable(2.0, dtype=tf.float64)
loss = scale * tf.reduce_sum(tf.sin(w * x))

opt = tf.compat.v1.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9)
grads_and_vars = opt.compute_gradients(loss, var_list=[w, bias, scale])
for g, v in grads_and_vars:
    print(v.name, g)
grads = [g for g, v in grads_and_vars if g is not None]
train_op = opt.apply_gradients([(g, v) for g, v in grads_and_vars if g is not None])

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    values = sess.run(grads, feed_dict={x: [0.5, -1.0, 2.0]})
    print(values)
