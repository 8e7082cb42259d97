# values: exact
# note: model.fit: one gradient call, the compiled loss on the first batch (batch_size=2 of 3 samples)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
model.layers[0].kernel.assign(np.array([[0.5, -1.0], [0.25, 0.5], [-0.5, 1.0]]))
model.layers[0].bias.assign(np.array([0.1, -0.2]))
model.compile(optimizer="sgd", loss="mse")

x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], [0.5, 0.5, 0.5]])
y = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]])
model.fit(x, y, batch_size=2, epochs=1, shuffle=False, verbose=0)
