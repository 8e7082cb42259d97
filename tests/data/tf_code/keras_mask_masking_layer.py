# values: exact
# note: Masking(mask_value=0.0) zeroes the all-zero steps and masks them; GlobalAveragePooling1D then averages the unmasked steps only; the masked steps of x get zero gradients (tf.where), which explain names, with the mask comparison x != 0 as a cut path (non_differentiable at the Masking line)
# expect: call 0 source x: non_differentiable line 15
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import numpy as np
import tensorflow as tf

x = tf.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]], [[0.0, 0.0], [0.5, 0.5], [0.0, 0.0]]])
masking = tf.keras.layers.Masking(mask_value=0.0)
pool = tf.keras.layers.GlobalAveragePooling1D()
dense = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(0.5), bias_initializer="ones")
with tf.GradientTape() as tape:
    tape.watch(x)
    m = masking(x)
    pooled = pool(m)
    loss = tf.reduce_sum(dense(pooled) ** 2)
print(m._keras_mask, pooled)
print(tape.gradient(loss, [x, dense.kernel, dense.bias]))
