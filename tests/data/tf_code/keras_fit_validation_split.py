# values: exact
# note: validation_split=0.25 keeps the last 2 of 8 samples for validation (before shuffling); steps_per_epoch=2 without batch_size makes batches of ceil(6 / 2) = 3
# note: call 1 reads history.params['steps'] and the history's keys: 1 * (2 + 10 * 2)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source v: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer=tf.keras.initializers.Constant(0.5))])
model.compile(optimizer="sgd", loss="mae", metrics=None)
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [2.0, 1.0], [0.5, 0.5], [-1.5, 1.0], [3.0, 3.0], [4.0, -4.0]])
y = np.array([1.0, 0.0, 2.0, -1.0, 0.5, 1.0, 9.0, 9.0])
hist = model.fit(x, y, validation_split=0.25, steps_per_epoch=2, epochs=2, shuffle=False, verbose=0, validation_freq=2)

v = tf.Variable(1.0)
with tf.GradientTape() as tape:
    t = v * (hist.params["steps"] + 10 * len(hist.history))
print(tape.gradient(t, v))
