# https://github.com/tensorflow/tensorflow/issues/55262
import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
lstm = tf.keras.layers.LSTM(3, return_state=True)
inputs = tf.constant(np.random.rand(2, 5, 4).astype("float32"))
h0 = tf.zeros([2, 3])
c0 = tf.zeros([2, 3])
with tf.GradientTape() as tape:
    tape.watch(h0)
    ht, _, _ = lstm(inputs, initial_state=[h0, c0])
    loss = tf.reduce_sum(ht)
print(tape.gradient(loss, h0))
