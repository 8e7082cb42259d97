# values: exact
# note: tf.py_function is differentiable through TF ops run inside it; here the function goes through NumPy, and TF returns zeros (not None)
# expect: call 0 source w: leaves_tape line 9
import numpy as np
import tensorflow as tf


def np_square(t):
    return np.square(t.numpy())


x = tf.constant([1.0, 2.0])
w = tf.Variable(3.0)

with tf.GradientTape() as tape:
    sq = tf.py_function(np_square, [w * x], tf.float32)
    loss = tf.reduce_sum(sq)

print(tape.gradient(loss, w))
