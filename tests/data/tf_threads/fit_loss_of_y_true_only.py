import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


def mda(y_true, y_pred):
    direction = tf.reduce_sum(y_true[:, 1:] - y_true[:, :-1])
    return direction


x_train = np.random.rand(2, 9).astype("float32")
y_train = np.random.rand(2, 9).astype("float32")
m = tf.keras.Sequential([tf.keras.Input(shape=(9,)), tf.keras.layers.Dense(9)])
m.compile(optimizer="adam", loss=mda)
m.fit(x_train, y_train, batch_size=2, epochs=1, verbose=0)
