import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x1_var = tf.Variable(2.0, name="x1")
x2_var = tf.Variable(3.0, name="x2")
loss = tf.square(x1_var)
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
grad_op = optimizer.compute_gradients(loss, [x1_var, x2_var])

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    print(sess.run([grad for grad, _ in grad_op]))
