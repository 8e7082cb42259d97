# values: exact
# note: eager TF1 minimize given a tensor, not a function: TensorFlow's RuntimeError
import tensorflow as tf

w = tf.Variable([1.0, -2.0])
opt = tf.compat.v1.train.AdamOptimizer(0.1)
loss = tf.reduce_sum(w * w)
opt.minimize(loss, var_list=[w])
