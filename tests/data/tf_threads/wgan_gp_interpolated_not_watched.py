import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
critic = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
real = tf.constant(np.random.rand(3, 4).astype("float32"))
fake = tf.constant(np.random.rand(3, 4).astype("float32"))

alpha = tf.random.uniform([3, 1], 0.0, 1.0)
interpolated = real + alpha * (fake - real)
with tf.GradientTape() as gp_tape:
    pred = critic(interpolated)
grads = gp_tape.gradient(pred, interpolated)
print(grads)
