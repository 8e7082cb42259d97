# values: exact
# note: Conv1D(padding="causal") pads (kernel_size - 1) * dilation_rate zeros on the left, then a valid convolution: output step t reads input steps t, t - 2, t - 4 only, so the first output step's gradient reaches input step 0 alone
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import numpy as np
import tensorflow as tf

conv = tf.keras.layers.Conv1D(2, 3, padding="causal", dilation_rate=2)
x = tf.constant([[[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0], [1.0, 1.0], [0.0, -0.5]]])
conv(x)
conv.set_weights([
    np.array([[[0.5, -0.25], [1.0, 0.75]], [[-0.5, 0.25], [0.125, 1.0]], [[1.5, -1.0], [0.5, 0.5]]]),
    np.array([0.25, -0.125]),
])

with tf.GradientTape() as tape:
    tape.watch(x)
    y = conv(x)
    loss = tf.reduce_sum(y[:, 0, :] * 3.0) + tf.reduce_sum(y * y)

grads = tape.gradient(loss, [conv.kernel, conv.bias, x])
print(y.shape, [g.shape for g in grads])
