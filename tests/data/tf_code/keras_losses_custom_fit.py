# values: exact
# note: custom losses as users write them with tf.keras.backend (dice, a focal loss closure with tf.where, K.binary_crossentropy in a lambda) through compile + fit (run_eagerly for exact values); metrics functions and objects ignored
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 2 source #0: connected
# expect: call 2 source #1: connected
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Dense, Input
from tensorflow.keras.models import Model


def dice_coef(y_true, y_pred, smooth=1):
    y_true_f = K.flatten(y_true)
    y_pred_f = K.flatten(y_pred)
    intersection = K.sum(y_true_f * y_pred_f)
    return (2. * intersection + smooth) / (K.sum(y_true_f) + K.sum(y_pred_f) + smooth)


def dice_loss(y_true, y_pred):
    return 1 - dice_coef(y_true, y_pred)


def focal_loss(gamma=2., alpha=.25):
    def focal_loss_fixed(y_true, y_pred):
        pt_1 = tf.where(tf.equal(y_true, 1), y_pred, tf.ones_like(y_pred))
        pt_0 = tf.where(tf.equal(y_true, 0), y_pred, tf.zeros_like(y_pred))
        pt_1 = K.clip(pt_1, K.epsilon(), 1. - K.epsilon())
        pt_0 = K.clip(pt_0, K.epsilon(), 1. - K.epsilon())
        return -K.sum(alpha * K.pow(1. - pt_1, gamma) * K.log(pt_1)) - K.sum((1 - alpha) * K.pow(pt_0, gamma) * K.log(1. - pt_0))
    return focal_loss_fixed


inp = Input(shape=(4,))
out = Dense(3, activation="sigmoid", kernel_initializer="ones")(inp)
model = Model(inp, out)
model.compile(optimizer="adam", loss=dice_loss, metrics=[dice_coef, "accuracy"], run_eagerly=True)
x = np.array([[0.0, 0.1, 0.2, 0.3], [0.4, 0.5, 0.6, 0.7]])
y = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
model.fit(x, y, epochs=1, batch_size=2, verbose=0)
model = Model(inp, out)
model.set_weights([np.ones((4, 3)), np.zeros(3)])
model.compile(optimizer="adam", loss=focal_loss(alpha=0.5), metrics=[tf.keras.metrics.BinaryAccuracy()], run_eagerly=True)
model.fit(x, y, epochs=1, batch_size=2, verbose=0)
model = Model(inp, out)
model.set_weights([np.ones((4, 3)), np.zeros(3)])
model.compile(optimizer="adam", loss=lambda yt, yp: K.mean(K.binary_crossentropy(yt, yp), axis=-1), run_eagerly=True)
model.fit(x, y, epochs=1, batch_size=2, verbose=0)
