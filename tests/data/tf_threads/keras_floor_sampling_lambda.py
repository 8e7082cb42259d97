import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


def floor_sampling(x):
    return tf.floor(x + tf.random.uniform(tf.shape(x), 0, 1))


model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(4,)),
        tf.keras.layers.Dense(3, activation="sigmoid"),
        tf.keras.layers.Lambda(floor_sampling),
        tf.keras.layers.Dense(1),
    ]
)
model.compile(optimizer="sgd", loss="mse")
x = np.random.rand(4, 4).astype("float32")
y = np.random.rand(4, 1).astype("float32")
model.fit(x, y, epochs=1, batch_size=4, verbose=0)
