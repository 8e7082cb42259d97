# values: exact
# note: a custom training loop over a batched dataset: one gradient call per batch (3 samples, batch 2)
# expect: call 0 source w: connected
# expect: call 1 source w: connected
import numpy as np
import tensorflow as tf

x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = np.array([1.0, 0.0, 2.0])
w = tf.Variable([0.5, -0.25], dtype=tf.float64)
ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)

for step, (xb, yb) in enumerate(ds):
    with tf.GradientTape() as tape:
        pred = tf.reduce_sum(xb * w, axis=1)
        loss = tf.reduce_mean((pred - yb) ** 2)
    grads = tape.gradient(loss, w)
    print(step, grads)
