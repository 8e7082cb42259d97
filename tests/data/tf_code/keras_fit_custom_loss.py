# values: exact
# note: a user loss function: its per-sample output is averaged over the batch (sum_over_batch_size)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf


def my_loss(y_true, y_pred):
    return tf.reduce_sum(tf.abs(y_true - y_pred), axis=-1) + 0.5 * tf.reduce_mean(y_pred**2)


inputs = tf.keras.Input(shape=(2,))
hidden = tf.keras.layers.Dense(3, activation="tanh")(inputs)
outputs = tf.keras.layers.Dense(2)(hidden)
model = tf.keras.Model(inputs, outputs)
model.set_weights(
    [
        np.array([[0.5, -0.25, 1.0], [0.75, 0.5, -1.0]]),
        np.array([0.1, 0.0, -0.1]),
        np.array([[1.0, -1.0], [0.5, 0.25], [-0.5, 2.0]]),
        np.array([0.0, 0.5]),
    ]
)
model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss=my_loss)

x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [3.0, 1.0]])
y = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [2.0, -1.0]])
history = model.fit(x, y, epochs=2, verbose=0)
