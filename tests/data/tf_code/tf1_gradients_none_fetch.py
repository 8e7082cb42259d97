# values: exact
# note: tf.gradients returns None for the unused b; fetching that None in Session.run raises
# expect: call 0 source w: connected
# expect: call 0 source b: no_path
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

x = tf.compat.v1.placeholder(tf.float32, shape=(None, 2), name="x")
w = tf.Variable([[1.0], [2.0]], name="w")
b = tf.Variable(0.0, name="b")  # declared, never used
loss = tf.reduce_sum(tf.matmul(x, w))

grads = tf.gradients(loss, [w, b])
print(grads[1])  # None

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    gw, gb = sess.run(grads, feed_dict={x: [[1.0, 2.0], [3.0, 4.0]]})
    print(gw, gb)
