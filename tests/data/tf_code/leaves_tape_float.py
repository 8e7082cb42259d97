# values: exact
# note: the target is a Python float: tape.gradient raises
# expect: call 0 source w: leaves_tape line 10
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
w = tf.Variable(0.5)

with tf.GradientTape() as tape:
    loss = float(tf.reduce_sum(w * x))

grad = tape.gradient(loss, w)
print(grad)
