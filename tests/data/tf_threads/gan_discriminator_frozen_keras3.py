import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
d_input = tf.keras.Input(shape=(2,))
d_output = tf.keras.layers.Dense(2, activation="softmax")(d_input)
discriminator = tf.keras.Model(d_input, d_output)
discriminator.compile(loss="categorical_crossentropy", optimizer="adam")

g_input = tf.keras.Input(shape=(2,))
g_output = tf.keras.layers.Dense(2)(g_input)
generator = tf.keras.Model(g_input, g_output)

discriminator.trainable = False
gan = tf.keras.Model(g_input, discriminator(g_output))
gan.compile(loss="categorical_crossentropy", optimizer="adam")

noise = np.random.rand(3, 2).astype("float32")
real = np.random.rand(3, 2).astype("float32")
X = np.concatenate([real, generator.predict(noise, verbose=0)])
y = np.array([[0.0, 1.0]] * 3 + [[1.0, 0.0]] * 3, dtype="float32")
discriminator.train_on_batch(X, y)
gan.train_on_batch(noise, np.array([[0.0, 1.0]] * 3, dtype="float32"))
