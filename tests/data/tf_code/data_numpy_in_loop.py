# values: exact
# note: .numpy() on the prediction inside the loop's tape: every batch's gradient is None
# expect: call 0 source w: leaves_tape line 15
# expect: call 1 source w: leaves_tape line 15
import numpy as np
import tensorflow as tf

x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
w = tf.Variable([[0.5], [-1.0]], dtype=tf.float64)
ds = tf.data.Dataset.from_tensor_slices(x).batch(2)

for xb in ds:
    with tf.GradientTape() as tape:
        pred = tf.matmul(xb, w)
        scores = pred.numpy()
        loss = tf.reduce_mean(tf.square(scores))
    print(tape.gradient(loss, w))
