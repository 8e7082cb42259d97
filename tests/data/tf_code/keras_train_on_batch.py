# values: exact
# note: train_on_batch with a Keras loss object and loss_weights: the whole batch, one gradient call
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
model.layers[0].kernel.assign(np.array([[0.5], [-1.5]]))
model.layers[0].bias.assign(np.array([0.25]))
model.compile(
    optimizer="adam",
    loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
    loss_weights=0.5,
    metrics=["accuracy"],
)

x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0]])
y = np.array([[1.0], [0.0], [1.0]])
model.train_on_batch(x, y)
