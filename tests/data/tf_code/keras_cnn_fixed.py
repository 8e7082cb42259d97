# values: exact
# note: dyadic inputs and weights, so float32 sums are exact in any order; Conv2D -> MaxPooling2D -> Flatten -> Dense with fixed weights; Keras 3 makes conv2d/kernel (3, 3, 1, 2) then conv2d/bias; the max pool passes each window's gradient to its maximum only
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6, 6, 1)),
    tf.keras.layers.Conv2D(2, 3, activation="relu"),
    tf.keras.layers.MaxPooling2D(),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1),
])
kernel = np.array([[[[(6 * i + 2 * j + k) / 8.0 - 1.0 for k in range(2)]] for j in range(3)]
                   for i in range(3)])
model.set_weights([
    kernel,
    np.array([0.25, -0.5]),
    np.array([[k / 4.0 - 1.0] for k in range(8)]),
    np.array([0.5]),
])

image = tf.constant([[[[((36 * n + 6 * i + j) % 7 - 3) / 4.0] for j in range(6)] for i in range(6)]
                     for n in range(2)])
target = tf.constant([[1.0], [-1.0]])
mse = tf.keras.losses.MeanSquaredError()

with tf.GradientTape() as tape:
    tape.watch(image)
    loss = mse(target, model(image))

grads = tape.gradient(loss, model.trainable_variables + [image])
print([v.path for v in model.trainable_variables])
print([g.shape for g in grads])
