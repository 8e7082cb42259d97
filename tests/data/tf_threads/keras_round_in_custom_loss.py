import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


def rounded_loss(y_true, y_pred):
    return tf.reduce_mean(tf.abs(y_true - tf.round(y_pred)))


model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="sgd", loss=rounded_loss)
x = np.random.rand(6, 3).astype("float32")
y = np.array([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0]], dtype="float32")
model.fit(x, y, epochs=1, batch_size=6, verbose=0)
