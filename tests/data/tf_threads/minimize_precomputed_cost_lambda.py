import tensorflow as tf

y_N = tf.Variable([1.0, 2.0, 3.0], name="dd")
cost = -tf.reduce_mean(tf.reduce_sum(tf.math.log(y_N), axis=0))

loss = lambda: cost  # noqa: E731

train_step = tf.compat.v1.train.AdamOptimizer(0.5).minimize(loss, var_list=[y_N])
