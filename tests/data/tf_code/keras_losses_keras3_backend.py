# values: exact
# note: Keras 3's keras.backend (import keras / from keras import backend) has no math functions: K.mean raises AttributeError; tf.keras.backend is the legacy backend that has them
import keras
import tensorflow as tf
from keras import backend as K


def rmse(y_true, y_pred):
    return K.sqrt(K.mean(K.square(y_pred - y_true), axis=-1))


y_pred = tf.Variable([[1.0, 2.0], [0.5, -1.0]])
with tf.GradientTape() as tape:
    loss = rmse(tf.constant([[0.0, 1.0], [1.0, 1.0]]), y_pred) * keras.backend.epsilon()
print(tape.gradient(loss, y_pred))
