# values: structure
# note: a loss through argmax: Keras says only "No gradients provided for any variable"
# expect: call 0 source #0: non_differentiable line 11
# expect: call 0 source #1: non_differentiable line 11
import numpy as np
import tensorflow as tf


def class_error(y_true, y_pred):
    labels = tf.argmax(y_true, axis=-1)
    guesses = tf.argmax(y_pred, axis=-1)
    return tf.cast(tf.not_equal(labels, guesses), tf.float32)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3)])
model.compile(optimizer="adam", loss=class_error)
x = np.ones((5, 4))
y = np.array([[1.0, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]])
model.fit(x, y, batch_size=4, verbose=0)
