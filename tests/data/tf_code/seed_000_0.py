import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, name="x")
y = x * x + 3 * x

grad = tf.gradients(y, x)[0]

with tf.compat.v1.Session() as sess:
    print(sess.run(grad, feed_dict={x: 2.0}))   # 7.0

# values: exact
# expect: call 0 source x: connected
