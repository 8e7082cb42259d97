# values: exact
# note: tape.watch of a Python float: what TensorFlow 2.21 does with it
import tensorflow as tf

x = 3.0
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x
g = tape.gradient(y, x)
