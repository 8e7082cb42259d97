# values: exact
# note: eager tf.py_function records the TensorFlow ops its function runs: gradients flow
import tensorflow as tf

x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = tf.py_function(func=lambda t: t * t, inp=[x], Tout=tf.float32)
g = tape.gradient(y, x)
