# values: exact
# expect: call 0 source w: leaves_tape line 14
# expect: call 0 source b: leaves_tape line 14
import numpy as np
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
y_true = tf.constant([2.0, 4.0, 6.0])
w = tf.Variable(0.5)
b = tf.Variable(0.0)

with tf.GradientTape() as tape:
    err = w * x + b - y_true
    loss = tf.reduce_mean(np.square(err))  # np.square returns an ndarray

dw, db = tape.gradient(loss, [w, b])
print(dw, db)
