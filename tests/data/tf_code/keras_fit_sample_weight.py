# values: exact
# note: sample_weight multiplies the per-sample losses; sum_over_batch_size divides by the batch's sample count (not the weights' sum)
# note: model a: fit on the first batch of 4 of 6 samples; model b: train_on_batch with per-sample weights and a custom loss
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf


def loss_b(y_true, y_pred):
    return tf.reduce_mean(tf.abs(y_true - y_pred) ** 1.5, axis=-1)


x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [2.0, 1.0], [0.5, 0.5], [-1.5, 1.0]])
y = np.array([[1.0], [0.0], [2.0], [-1.0], [0.5], [1.0]])
sw = np.array([0.5, 2.0, 0.0, 1.0, 3.0, 1.0])

a = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
a.set_weights([np.array([[0.5], [-1.5]]), np.array([0.25])])
a.compile(optimizer="sgd", loss="mse")
a.fit(x, y, sample_weight=sw, batch_size=4, shuffle=False, verbose=0)

b = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(2), tf.keras.layers.Dense(1)])
b.set_weights([np.array([[0.5, 1.0], [-1.5, 0.25]]), np.array([0.25, -0.5]), np.array([[1.0], [-2.0]]), np.array([0.1])])
b.compile(optimizer="adam", loss=loss_b)
b.train_on_batch(x[:5], y[:5], sample_weight=sw[:5])
