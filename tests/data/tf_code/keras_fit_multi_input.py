# values: exact
# note: a functional model with two inputs: fit with x as a list (batch_size=2 of 3), train_on_batch on a second model with x as a dict keyed by the inputs' names
# expect: call 0 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf
from tensorflow import keras


def two_inputs(prefix):
    a = keras.Input(shape=(2,), name=prefix + "z")
    b = keras.Input(shape=(1,), name=prefix + "b")
    h = keras.layers.Concatenate()([a, b])
    out = keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(0.5))(h)
    return keras.Model([a, b], out)


xa = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0]])
xb = np.array([[0.5], [1.5], [-1.0]])
y = np.array([[1.0], [0.0], [2.0]])

m = two_inputs("")
m.compile(optimizer="sgd", loss="mse")
m.fit([xa, xb], y, batch_size=2, shuffle=False, verbose=0)

n = two_inputs("n_")
n.compile(optimizer="sgd", loss="mae")
n.train_on_batch({"n_b": xb, "n_z": xa}, y)
