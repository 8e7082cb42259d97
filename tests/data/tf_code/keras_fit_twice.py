# values: structure
# note: Keras traces train_step once and reuses it: the second fit and the train_on_batch after it make no new trace, yet each trains a first step (one call each, at weights the earlier calls trained)
# expect: call 0 source #0: connected
# expect: call 1 source #1: connected
# expect: call 2 source #0: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3, activation="relu"), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [2.0, 1.0]])
y = np.array([[1.0], [0.0], [2.0], [-1.0]])
model.fit(x, y, epochs=2, verbose=0)
model.fit(x, y, batch_size=2, verbose=0)
model.train_on_batch(x[:2], y[:2])
