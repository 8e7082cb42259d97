import tensorflow as tf

tf.compat.v1.disable_eager_execution()

w = tf.Variable(2.0, name="w")
u = tf.Variable(1.0, name="u")
loss = tf.square(w)
step = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
pairs = tf.compat.v1.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=[w])
