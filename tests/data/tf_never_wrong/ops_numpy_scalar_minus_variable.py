# values: exact
# note: np.float32(1) - w: NumPy defers to the Variable (__array_priority__), so the result is
# note: a float32 tensor and the gradient flows (a thread read it as NumPy arithmetic: None)
# expect: call 0 source w: connected
import numpy as np
import tensorflow as tf

w = tf.Variable(2.0)
with tf.GradientTape() as tape:
    d = np.float32(1) - w
    loss = d * d
g = tape.gradient(loss, w)
