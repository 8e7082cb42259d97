# values: exact
# note: dyadic inputs and weights (float32 sums exact in any order); Conv1D (same padding, stride 2), Conv2DTranspose (kernel (2, 2, filters, in), stride 2), average and global pools, weights set after the first call
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf

conv1 = tf.keras.layers.Conv1D(3, 2, strides=2, padding="same", activation="relu")
pool1 = tf.keras.layers.AveragePooling1D(pool_size=2, strides=1)
gap1 = tf.keras.layers.GlobalAveragePooling1D()
up = tf.keras.layers.Conv2DTranspose(2, 2, strides=2, use_bias=False)
pool2 = tf.keras.layers.AveragePooling2D(pool_size=(2, 2), padding="same")
gmp = tf.keras.layers.GlobalMaxPooling2D()
gap2 = tf.keras.layers.GlobalAveragePooling2D(keepdims=True)
mp1 = tf.keras.layers.MaxPooling1D(pool_size=3, strides=1)

seq = tf.constant([[[((15 * n + 3 * t + c) % 5 - 2) / 4.0 for c in range(3)] for t in range(5)]
                   for n in range(2)])
img = tf.constant([[[[((4 * n + 2 * i + j) % 3 - 1.5) / 2.0] for j in range(2)] for i in range(2)]
                   for n in range(2)])
conv1(seq)
up(img)
conv1.set_weights([
    np.array([[[(9 * t + 3 * i + o) / 8.0 - 1.0 for o in range(3)] for i in range(3)] for t in range(2)]),
    np.array([0.125, 0.0, -0.125]),
])
up.set_weights([np.array([[[[(4 * i + 2 * j + f) / 4.0 - 0.5] for f in range(2)] for j in range(2)]
                           for i in range(2)])])

with tf.GradientTape() as tape:
    tape.watch(img)
    a = gap1(pool1(conv1(seq)))
    b = mp1(conv1(seq))
    u = up(img)
    c = gmp(pool2(u)) + tf.reduce_sum(gap2(u), axis=[1, 2])
    loss = tf.reduce_sum(a * a) + tf.reduce_sum(b) + tf.reduce_sum(c * c)

grads = tape.gradient(loss, [conv1.kernel, conv1.bias, up.kernel, img])
print([g.shape for g in grads])
print(u.shape, conv1.kernel.shape, up.kernel.shape)
