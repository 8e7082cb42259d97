# values: exact
# note: the typical Keras script: compile with metrics, summary, EarlyStopping, fit with validation data (one gradient call: the first batch of 4), History, predict, evaluate
# note: call 1 reads history.epoch, history.params and history.history's keys as numbers: 1 * (2 + 10 * 2 + 100 * 4)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source v: connected
import numpy as np
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2, kernel_initializer="ones")])
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
model.summary()
x = np.array([[0.0, 0.1, 0.2], [0.3, 0.4, 0.5], [0.6, 0.7, 0.8], [0.9, 1.0, 1.1],
              [1.2, 1.3, 1.4], [1.5, 1.6, 1.7], [1.8, 1.9, 2.0], [2.1, 2.2, 2.3]])
y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
xv, yv = x[:2] * 0.5, y[:2]
cb = keras.callbacks.EarlyStopping(patience=2)
history = model.fit(x, y, epochs=2, batch_size=4, callbacks=[cb], verbose=0, validation_data=(xv, yv), shuffle=False)
print(history.history["loss"])
p = model.predict(x)
ev = model.evaluate(x, y)

v = tf.Variable(1.0)
with tf.GradientTape() as tape:
    count = len(history.epoch) + 10 * history.params["steps"] + 100 * len(history.history)
    total = v * count
print(tape.gradient(total, v))
