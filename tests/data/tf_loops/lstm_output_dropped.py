import numpy as np
import tensorflow as tf
x = tf.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4))
lstm = tf.keras.layers.LSTM(5)
dense = tf.keras.layers.Dense(1)
with tf.GradientTape() as tape:
    h = lstm(x)
    y = tf.reduce_sum(dense(x[:, -1]))
print(tape.gradient(y, lstm.trainable_variables[0]))
