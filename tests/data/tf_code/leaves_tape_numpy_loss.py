# values: exact
# note: the target itself is a NumPy scalar: tape.gradient raises instead of returning None
# expect: call 0 source w: leaves_tape line 12
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
y_true = tf.constant([2.0, 4.0, 6.0])
w = tf.Variable(0.5)

with tf.GradientTape() as tape:
    pred = w * x
    loss = tf.reduce_mean(tf.square(pred - y_true)).numpy()

grad = tape.gradient(loss, w)
print(grad)
