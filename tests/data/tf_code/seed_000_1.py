import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32)
y = tf.compat.v1.placeholder(tf.float32)
z = x * y + y * y

grads = tf.gradients(z, [x, y])

with tf.compat.v1.Session() as sess:
    gx, gy = sess.run(grads, feed_dict={x: 2.0, y: 3.0})
    print(gx, gy)   # 3.0 8.0

# values: exact
# expect: call 0 source x: connected
# expect: call 0 source y: connected
