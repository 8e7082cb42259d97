# values: exact
# note: keras.ops.convert_to_numpy in a loss: under an eager tape the array leaves TensorFlow (the gradient is None); through fit with run_eagerly=True every variable gets None and Keras raises "No gradients provided for any variable"
# expect: call 0 source y_pred: leaves_tape line 12
# expect: call 1 source #0: leaves_tape line 12
# expect: call 1 source #1: leaves_tape line 12
import keras
import numpy as np
import tensorflow as tf


def numpy_loss(y_true, y_pred):
    return keras.ops.mean(keras.ops.convert_to_numpy(y_pred) - y_true)


y_pred = tf.Variable([[1.0, 2.0], [0.5, -1.0]])
with tf.GradientTape() as tape:
    loss = numpy_loss(tf.constant([[0.0, 1.0], [1.0, 1.0]]), y_pred)
print(tape.gradient(loss, y_pred))

model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(2, kernel_initializer="ones")])
model.compile(optimizer="adam", loss=numpy_loss, metrics=["mae"], run_eagerly=True)
model.fit(np.ones((4, 2)), np.zeros((4, 2)), epochs=1, verbose=0)
