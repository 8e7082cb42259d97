import numpy as np
import tensorflow as tf

model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(3,)),
        tf.keras.layers.Dense(2),
        tf.keras.layers.Lambda(lambda t: tf.stop_gradient(t)),
        tf.keras.layers.Dense(1),
    ]
)
model.compile(optimizer="sgd", loss="mse")
x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=np.float32)
y = np.array([[1.0], [0.0]], dtype=np.float32)
model.fit(x, y, batch_size=2, epochs=1, verbose=0)
