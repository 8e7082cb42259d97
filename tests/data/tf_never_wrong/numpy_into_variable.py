# values: exact
# note: the value left TensorFlow through .numpy() (lines 10 and 11) before each copy
# expect: call 0 source w: leaves_tape line 10
import tensorflow as tf

w = tf.Variable(2.0)
buf = tf.Variable(0.0)
with tf.GradientTape(persistent=True) as tape:
    h = w * 3.0
    buf.assign(h.numpy())
    v = tf.Variable(h.numpy())
    loss = v * 2.0 + buf
g = tape.gradient(loss, w)
