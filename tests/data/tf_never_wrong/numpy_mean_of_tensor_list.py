# values: exact
# note: NumPy reads each tensor of the list (np.mean, np.std of float()s): the gradient is None
# expect: call 0 source v: leaves_tape line 13
# expect: call 1 source v: leaves_tape line 12
import numpy as np
import tensorflow as tf

v = tf.Variable([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    a = v[0] * 2.0
    b = v[1] * 3.0
    losses = [float(a), float(b)]
    m = tf.constant(1.0) * np.mean([a, b])
    s = tf.convert_to_tensor(np.std(losses), dtype=tf.float32)
g = tape.gradient(m, v)
h = tape.gradient(s, v)
