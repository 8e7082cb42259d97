import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
encoder = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(3)])
anchor = np.random.rand(2, 5).astype("float32")
positive = anchor.copy()
negative = np.random.rand(2, 5).astype("float32")

with tf.GradientTape() as tape:
    ea, ep, en = encoder(anchor), encoder(positive), encoder(negative)
    d_pos = tf.sqrt(tf.reduce_sum(tf.square(ea - ep), axis=1))
    d_neg = tf.sqrt(tf.reduce_sum(tf.square(ea - en), axis=1))
    loss = tf.reduce_mean(tf.maximum(d_pos - d_neg + 1.0, 0.0))
grads = tape.gradient(loss, encoder.trainable_variables)
print(grads)
