import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
G = tf.keras.Sequential([tf.keras.Input(shape=(1,)), tf.keras.layers.Dense(5)])
D = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1, activation="sigmoid")])
criterion = tf.keras.losses.BinaryCrossentropy()


def get_moments(d):
    return np.array([np.mean(d), np.std(d), np.min(d), np.max(d)], dtype="float32")


gen_input = tf.constant(np.random.rand(3, 1).astype("float32"))
with tf.GradientTape() as tape:
    g_fake_data = G(gen_input)
    dg_fake_decision = D(get_moments(g_fake_data.numpy().T).reshape((1, 4)))
    g_error = criterion(tf.ones((1, 1)), dg_fake_decision)
grads = tape.gradient(g_error, G.trainable_variables)
print(grads)
