# values: exact
# note: np.mean of an EagerTensor is a NumPy scalar, so tape.gradient raises
# expect: call 0 source w: leaves_tape line 13
import numpy as np
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
y_true = tf.constant([2.0, 4.0, 6.0])
w = tf.Variable(0.5)

with tf.GradientTape() as tape:
    pred = w * x
    loss = np.mean((pred - y_true) ** 2)

grad = tape.gradient(loss, w)
print(grad)
