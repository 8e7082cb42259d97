# values: exact
# note: kernel_regularizer/bias_regularizer penalties are in model.losses (computed when read, so read inside the tape); a training step adds them to the loss; the frozen layer's penalty is not among them
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(2,)),
    tf.keras.layers.Dense(3, activation="relu", kernel_regularizer=tf.keras.regularizers.l2(0.1),
                          bias_regularizer="l1"),
    tf.keras.layers.Dense(2, kernel_regularizer=tf.keras.regularizers.L1L2(l1=0.01, l2=0.02),
                          bias_regularizer=tf.keras.regularizers.L1(0.5)),
    tf.keras.layers.Dense(1, kernel_regularizer="l2"),
])
model.set_weights([
    np.array([[0.5, -0.5, 1.0], [0.25, 0.75, -1.0]]),
    np.array([0.0, 0.1, -0.1]),
    np.array([[1.0, 0.5], [-2.0, 0.0], [0.5, -0.25]]),
    np.array([0.3, -0.3]),
    np.array([[1.5], [-0.5]]),
    np.array([0.0]),
])
model.layers[2].trainable = False

x = tf.constant([[1.0, 2.0], [0.5, -1.0]])
y = tf.constant([[1.0], [0.0]])
mse = tf.keras.losses.MeanSquaredError()

with tf.GradientTape() as tape:
    loss = mse(y, model(x)) + sum(model.losses)

grads = tape.gradient(loss, model.trainable_variables)
print(len(model.losses), [g.shape for g in grads])
