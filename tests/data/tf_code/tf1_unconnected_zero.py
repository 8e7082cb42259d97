# values: exact
# expect: call 0 source a: connected
# expect: call 0 source b: no_path
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

a = tf.compat.v1.placeholder(tf.float32, shape=(2, 2))
b = tf.compat.v1.placeholder(tf.float32, shape=(2,))
loss = tf.reduce_sum(tf.sin(a))

grads = tf.gradients(loss, [a, b], unconnected_gradients="zero")

with tf.compat.v1.Session() as sess:
    ga, gb = sess.run(grads, feed_dict={a: [[0.0, 1.0], [2.0, 3.0]], b: [5.0, 6.0]})
    print(ga, gb)
