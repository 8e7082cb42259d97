# values: exact
# note: the merge layers with masked inputs: Add and Concatenate put the OR of the masks on their output, Multiply multiplies only unmasked values (1 elsewhere, 0 on the steps masked in every input), Maximum keeps each input's unmasked values; a Dense after them passes the mask on to the loss, which averages over the unmasked steps
# expect: call 0 source a: non_differentiable line 15
# expect: call 0 source b: non_differentiable line 15
import numpy as np
import tensorflow as tf

a = tf.constant([[[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]], [[0.5, 0.0], [0.0, 0.0], [2.0, 2.0]]])
b = tf.constant([[[0.0, 0.0], [1.0, -2.0], [0.5, 0.5]], [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]]])
masking = tf.keras.layers.Masking()
dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
mse = tf.keras.losses.MeanSquaredError()
with tf.GradientTape(persistent=True) as tape:
    tape.watch([a, b])
    ma, mb = masking(a), masking(b)
    added = tf.keras.layers.Add()([ma, mb])
    joined = tf.keras.layers.Concatenate()([ma, mb])
    product = tf.keras.layers.Multiply()([ma, mb])
    top = tf.keras.layers.Maximum()([ma, mb])
    merged = tf.keras.layers.Concatenate()([added, joined, product, top])
    pred = dense(merged)
    loss = mse(tf.ones((2, 3, 1)), pred)
print(added._keras_mask, product._keras_mask, pred._keras_mask)
print(tape.gradient(loss, [a, b]))
