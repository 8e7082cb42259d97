import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32)
w = tf.exp(x)
y = tf.where(x > 0, 0.0, w)
z = tf.gradients(y, x)[0]

with tf.compat.v1.Session() as sess:
    yv, zv = sess.run([y, z], {x: 1e10})
    print(yv, zv)
