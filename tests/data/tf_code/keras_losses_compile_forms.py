# values: exact
# note: compile(loss=...) with a one-element list, a loss class (Keras makes the object) and a keras.losses.Loss subclass written with keras.ops
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 2 source #0: connected
# expect: call 2 source #1: connected
import keras
import numpy as np
import tensorflow as tf


class Scaled(keras.losses.Loss):
    def call(self, y_true, y_pred):
        return keras.ops.mean(keras.ops.abs(y_true - y_pred), axis=-1) * 2.0


x = np.array([[1.0, 2.0], [-1.0, 0.5]])
y = np.array([[0.5, 1.0], [1.0, -1.0]])
for loss in (["huber"], tf.keras.losses.LogCosh, Scaled):
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(2, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss=loss, run_eagerly=True)
    model.fit(x, y, verbose=0)
