# values: exact
# note: a trainable variable made inside the tape is watched when it is read
# expect: call 0 source v: connected
import tensorflow as tf

with tf.GradientTape() as tape:
    v = tf.Variable(3.0)
    loss = v * v
g = tape.gradient(loss, v)
