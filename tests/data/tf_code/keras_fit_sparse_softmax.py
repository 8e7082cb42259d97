# values: exact
# note: compile(loss='sparse_categorical_crossentropy') on a softmax Dense: Keras computes from the logits
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3, activation="softmax")])
model.set_weights([np.array([[20.0, -20.0, 0.5], [-20.0, 20.0, 0.25]]), np.array([0.0, 0.1, -0.1])])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
x = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])
y = np.array([1, 0, 2])
model.fit(x, y, verbose=0)
