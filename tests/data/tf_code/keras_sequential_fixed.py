# values: exact
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(2,)),
    tf.keras.layers.Dense(3, activation="tanh"),
    tf.keras.layers.Dense(1),
])
model.set_weights([
    np.array([[0.5, -0.5, 1.0], [0.25, 0.75, -1.0]]),
    np.array([0.0, 0.1, -0.1]),
    np.array([[1.0], [-2.0], [0.5]]),
    np.array([0.3]),
])

x = tf.constant([[1.0, 2.0], [0.5, -1.0], [0.0, 0.0]])
y = tf.constant([[1.0], [0.0], [-1.0]])
mse = tf.keras.losses.MeanSquaredError()

with tf.GradientTape() as tape:
    loss = mse(y, model(x))

grads = tape.gradient(loss, model.trainable_variables)
print([g.shape for g in grads])
