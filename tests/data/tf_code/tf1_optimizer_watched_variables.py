# values: exact
# note: eager TF1 optimizer without var_list: TensorFlow takes the tape's watched_variables(), the trainable variables the loss function read, in creation order (not the order it read them; the trainable=False one is not watched)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import tensorflow as tf

a = tf.Variable(1.0, name="a")
b = tf.Variable(2.0, name="b")
c = tf.Variable(3.0, name="c", trainable=False)
d = tf.Variable([4.0, 5.0], name="d")
unused = tf.Variable(6.0, name="unused")
opt = tf.compat.v1.train.AdagradOptimizer(0.1)


def loss_fn():
    return tf.reduce_sum(d * b * c) + a * 0.0


grads_and_vars = opt.compute_gradients(loss_fn)
for g, v in grads_and_vars:
    print(v.name, g.numpy())
