# values: exact
# note: TensorFlow packs a Python list holding tensors (tf.stack): gradients reach each one
# expect: call 0 source v: connected
# expect: call 1 source v: connected
import tensorflow as tf

v = tf.Variable([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    a = v[0] * 2.0
    total = tf.reduce_sum([a, v[1], 3.0])
    mean = tf.reduce_mean([[a, a], [v[1], v[0]]])
g = tape.gradient(total, v)
h = tape.gradient(mean, v)
