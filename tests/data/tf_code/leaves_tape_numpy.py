# values: exact
# expect: call 0 source w: leaves_tape line 13
# expect: call 0 source b: leaves_tape line 13
import numpy as np
import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
y_true = tf.constant([2.0, 4.0, 6.0])
w = tf.Variable(0.5)
b = tf.Variable(0.1)

with tf.GradientTape() as tape:
    pred = (w * x + b).numpy()  # a NumPy array from here on
    loss = tf.reduce_mean(tf.square(pred - y_true))

grads = tape.gradient(loss, [w, b])
print(grads)
