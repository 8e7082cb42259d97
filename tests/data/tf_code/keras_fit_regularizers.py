# values: exact
# note: fit adds model.losses (the layers' regularization penalties) to the compiled loss
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(2,)),
        tf.keras.layers.Dense(2, activation="relu", kernel_regularizer=tf.keras.regularizers.L2(0.05)),
        tf.keras.layers.Dense(1, kernel_regularizer="l1", bias_regularizer="l2"),
    ]
)
model.set_weights(
    [
        np.array([[0.5, -1.0], [1.5, 0.25]]),
        np.array([0.1, 0.2]),
        np.array([[1.0], [-2.0]]),
        np.array([0.3]),
    ]
)
model.compile(optimizer="sgd", loss="mae")
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.5, -0.5]])
y = np.array([[1.0], [0.0], [2.0]])
model.fit(x, y, batch_size=2, shuffle=False, verbose=0)
