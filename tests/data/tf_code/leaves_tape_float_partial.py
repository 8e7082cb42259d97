# values: exact
# note: only the numerator path reaches w; the float() path is cut, so TensorFlow's value (x / norm) is not the derivative of the printed loss
# expect: call 0 source w: connected
import tensorflow as tf

x = tf.constant([1.0, 2.0, 2.0], dtype=tf.float64)
w = tf.Variable([3.0, 0.0, 4.0], dtype=tf.float64)

with tf.GradientTape() as tape:
    norm = float(tf.norm(w))  # a Python float: no path back to w
    loss = tf.reduce_sum(w * x) / norm

grad = tape.gradient(loss, w)
print(grad.numpy())
