import tensorflow as tf

tf.compat.v1.disable_eager_execution()

W1 = tf.Variable([2.0])
W2 = tf.Variable([0.0])
ratio = W1 / W2
y = tf.where(tf.equal(W2, 0.0), W1, ratio)
grads = tf.gradients(y, [W1, W2])

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    print(sess.run([y, grads]))
