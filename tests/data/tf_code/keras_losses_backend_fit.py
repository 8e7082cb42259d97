# values: exact
# note: an old K-style custom loss through compile + fit (tf.keras.backend, the legacy backend); metrics strings and objects are read and ignored
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K


def rmse_plus_l1(y_true, y_pred):
    err = K.sqrt(K.mean(K.square(y_pred - y_true), axis=-1) + K.epsilon())
    return err + 0.1 * K.sum(K.abs(y_pred), axis=-1)


model = tf.keras.Sequential([
    tf.keras.Input(shape=(2,)),
    tf.keras.layers.Dense(3, activation="relu"),
    tf.keras.layers.Dense(2),
])
model.set_weights([
    np.array([[0.5, -0.25, 1.0], [0.75, 0.5, -1.0]]),
    np.array([0.1, 0.0, -0.1]),
    np.array([[1.0, -1.0], [0.5, 0.25], [-0.5, 2.0]]),
    np.array([0.0, 0.5]),
])
model.compile(
    optimizer=tf.keras.optimizers.Adam(0.01),
    run_eagerly=True,
    loss=rmse_plus_l1,
    metrics=["mae", tf.keras.metrics.RootMeanSquaredError(), tf.keras.metrics.AUC(name="auc")],
)
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [3.0, 1.0]])
y = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [2.0, -1.0]])
model.fit(x, y, batch_size=4, epochs=1, verbose=0)
