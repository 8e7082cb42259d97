# values: exact
# note: old custom losses with tf.keras.backend (the legacy backend TensorFlow 2.21 maps tf.keras.backend to): K.mean, K.square, K.sqrt (of maximum(x, 0): a negative x gets no gradient), K.clip, K.epsilon(), K.binary_crossentropy (epsilon inside its logs)
# expect: call 0 source y_pred: connected
# expect: call 1 source y_pred: connected
# expect: call 2 source y_pred: connected
# expect: call 3 source y_pred: connected
import tensorflow as tf
from tensorflow.keras import backend as K

y_true = tf.constant([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
y_pred = tf.Variable([[0.25, 0.75, 1.0], [0.5, 0.0, 0.125]])


def mse(y_true, y_pred):
    return K.mean(K.square(y_true - y_pred), axis=-1)


def weighted_bce(y_true, y_pred):
    y_pred = K.clip(y_pred, K.epsilon(), 1 - K.epsilon())
    return K.mean(K.binary_crossentropy(y_true, y_pred) * (1.0 + y_true), axis=-1)


with tf.GradientTape(persistent=True) as tape:
    loss_mse = K.mean(mse(y_true, y_pred))
    loss_bce = K.sum(weighted_bce(y_true, y_pred))
    loss_sqrt = K.sum(K.sqrt(y_pred - 0.2)) + K.sum(K.abs(K.flatten(y_pred)))
    loss_cce = K.mean(K.categorical_crossentropy(y_true, K.softmax(y_pred)))

print(tape.gradient(loss_mse, y_pred))
print(tape.gradient(loss_bce, y_pred))
print(tape.gradient(loss_sqrt, y_pred))
print(tape.gradient(loss_cce, y_pred))
