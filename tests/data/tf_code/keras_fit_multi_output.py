# values: exact
# note: a functional model with two outputs: compile with a dict of losses and loss_weights (model a, fit with y as a dict) and with lists (model b, train_on_batch)
# note: Keras's total loss is the sum of each output's loss times its weight; call 2 counts the History's keys (loss, out_a_loss, out_a_mae, out_b_loss)
# expect: call 0 source #0: connected
# expect: call 0 source #3: connected
# expect: call 1 source #0: connected
# expect: call 1 source #3: connected
# expect: call 2 source v: connected
import numpy as np
import tensorflow as tf
from tensorflow import keras


def two_heads(prefix):
    inp = keras.Input(shape=(3,))
    h = keras.layers.Dense(2, activation="relu", kernel_initializer="ones", name=prefix + "hidden")(inp)
    a = keras.layers.Dense(2, kernel_initializer=keras.initializers.Constant(0.5), name=prefix + "out_a")(h)
    b = keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(-0.25), name=prefix + "out_b")(h)
    return keras.Model(inp, [a, b])


x = np.array([[0.5, 1.0, -0.5], [1.0, 0.0, 2.0], [-1.0, 1.0, 1.0], [0.25, 0.5, 0.75]])
ya = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [1.0, 1.0]])
yb = np.array([[0.5], [-1.0], [2.0], [0.0]])

a = two_heads("")
a.compile(optimizer="sgd", loss={"out_b": "mae", "out_a": "mse"}, loss_weights={"out_a": 1.0, "out_b": 0.5}, metrics={"out_a": "mae"})
hist = a.fit(x, {"out_a": ya, "out_b": yb}, batch_size=4, verbose=0)

b = two_heads("b_")
b.compile(optimizer="adam", loss=["mse", keras.losses.MeanAbsoluteError()], loss_weights=[2.0, 0.25])
b.train_on_batch(x, [ya, yb])

v = tf.Variable(1.0)
with tf.GradientTape() as tape:
    t = v * len(hist.history)
print(tape.gradient(t, v))
