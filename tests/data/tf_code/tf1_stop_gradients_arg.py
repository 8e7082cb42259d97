# values: exact
# note: tf.gradients' stop_gradients= argument treats h as a constant: dy/dx keeps only the direct path (1.0, not 8x + 1), dy/dh is 2h
# expect: call 0 source x: connected
# expect: call 0 source h: connected
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=())
h = 2.0 * x
y = h * h + x

grads = tf.gradients(y, [x, h], stop_gradients=[h])

with tf.compat.v1.Session() as sess:
    print(sess.run(grads, feed_dict={x: 3.0}))  # [1.0, 12.0]
