import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


def np_loss(y_true, y_pred):
    err = tf.numpy_function(lambda a, b: np.mean((a - b) ** 2).astype("float32"), [y_true, y_pred], tf.float32)
    return tf.reshape(err, [])


model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=np_loss)
x = np.random.rand(4, 3).astype("float32")
y = np.random.rand(4, 1).astype("float32")
model.fit(x, y, epochs=1, batch_size=4, verbose=0)
