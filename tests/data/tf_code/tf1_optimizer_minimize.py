# values: exact
# note: a TF1 optimizer in eager mode: minimize calls the loss under a tape watching var_list
# expect: call 0 source #0: connected
# expect: call 1 source w: connected
# expect: call 1 source b: no_path
import tensorflow as tf

w = tf.Variable([1.0, -2.0])
b = tf.Variable(0.5)
x = tf.constant([3.0, 4.0])
opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)


def loss_fn():
    return tf.reduce_sum(w * x) ** 2


pairs = opt.compute_gradients(lambda: tf.reduce_sum(tf.sin(w)), var_list=[w])
opt.minimize(loss_fn, var_list=[w, b])
opt.apply_gradients(pairs)
