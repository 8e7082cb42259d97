# values: exact
# expect: call 0 source w: leaves_tape line 15
import numpy as np
import tensorflow as tf


def np_clip(a):
    return np.clip(a, -1.0, 1.0).astype(np.float32)


x = tf.constant([0.5, 2.0, -3.0])
w = tf.Variable(1.5)

with tf.GradientTape() as tape:
    clipped = tf.numpy_function(np_clip, [w * x], tf.float32)
    loss = tf.reduce_sum(clipped)

print(tape.gradient(loss, w))
