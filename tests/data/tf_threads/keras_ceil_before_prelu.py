import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(3,))
hidden = tf.keras.layers.Dense(3)(inputs)
stepped = tf.keras.layers.Lambda(lambda t: tf.math.ceil(t))(hidden)
act = tf.keras.layers.PReLU()(stepped)
outputs = tf.keras.layers.Dense(1)(act)
model = tf.keras.Model(inputs, outputs)
x = np.random.rand(4, 3).astype("float32")
y = np.random.rand(4, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
