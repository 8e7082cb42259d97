import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(4,))
hidden = tf.keras.layers.Dense(3)(inputs)
frozen = tf.keras.layers.Lambda(lambda t: tf.stop_gradient(t))(hidden)
outputs = tf.keras.layers.Dense(2)(frozen)
model = tf.keras.Model(inputs, outputs)
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(2, 4), np.random.rand(2, 2), batch_size=2, epochs=1, verbose=0)
