# values: exact
# note: the loss functions themselves: one loss per sample in y_pred's dtype (float64 stays float64), tf.keras's legacy aliases (kld, logcosh, mape, msle), keras.metrics' functions, options by keyword
# expect: call 0 source pred: connected
# expect: call 1 source pred: connected
# expect: call 2 source pred: connected
# expect: call 3 source pred: connected
# expect: call 4 source pred: connected
# expect: call 5 source pred: connected
# expect: call 6 source pred: connected
# expect: call 7 source pred: connected
import keras
import numpy as np
import tensorflow as tf

target = tf.constant(np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]]))
pred = tf.Variable(np.array([[0.2, 0.5, 0.3], [0.3, 0.3, 0.4]]))

with tf.GradientTape(persistent=True) as tape:
    kld = tf.keras.losses.kld(target, pred)
    logcosh = tf.keras.losses.logcosh(target, pred)
    mape = tf.keras.losses.mape(target, pred)
    msle = tf.keras.losses.msle(target, pred)
    huber = keras.losses.huber(target, pred, delta=0.05)
    metric_mse = keras.metrics.mean_squared_error(target, pred)
    cosine = keras.losses.cosine_similarity(target, pred, axis=0)
    focal = keras.losses.categorical_focal_crossentropy(target, pred, gamma=3.0, label_smoothing=0.1)

print(kld.dtype, tape.gradient(kld, pred))
print(tape.gradient(logcosh, pred))
print(tape.gradient(mape, pred))
print(tape.gradient(msle, pred))
print(tape.gradient(huber, pred))
print(tape.gradient(metric_mse, pred))
print(tape.gradient(cosine, pred))
print(tape.gradient(focal, pred))
