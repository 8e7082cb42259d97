import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(4,))
inception_out = tf.keras.layers.Dense(3, activation="tanh")(inputs)
cnn_input = tf.keras.layers.Lambda(tf.stop_gradient)(inception_out)
cnn_out = tf.keras.layers.Dense(2, name="cnn")(cnn_input)
lstm_out = tf.keras.layers.Dense(2, name="lstm")(inception_out)
model = tf.keras.Model(inputs, [cnn_out, lstm_out])
model.compile(optimizer="sgd", loss=["mse", "mse"])
x = np.random.rand(2, 4)
model.fit(x, [np.random.rand(2, 2), np.random.rand(2, 2)], batch_size=2, epochs=1, verbose=0)
