# values: structure
# note: fit traces train_step with tf.function: y_pred is symbolic, so .numpy() raises while tracing
# expect: call 0 source #0: leaves_tape line 10
# expect: call 0 source #1: leaves_tape line 10
import numpy as np
import tensorflow as tf


def numpy_loss(y_true, y_pred):
    return np.mean((y_true.numpy() - y_pred.numpy()) ** 2)


model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=numpy_loss)
x = np.ones((8, 3))
y = np.zeros((8, 1))
model.fit(x, y, epochs=1, verbose=0)
