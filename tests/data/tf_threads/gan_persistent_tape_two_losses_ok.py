import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
generator = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3)])
discriminator = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)
g_opt = tf.keras.optimizers.Adam(1e-3)
d_opt = tf.keras.optimizers.Adam(1e-3)

noise = tf.constant(np.random.rand(4, 2).astype("float32"))
real = tf.constant(np.random.rand(4, 3).astype("float32"))
with tf.GradientTape(persistent=True) as tape:
    fake = generator(noise)
    real_out = discriminator(real)
    fake_out = discriminator(fake)
    g_loss = bce(tf.ones_like(fake_out), fake_out)
    d_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
g_grads = tape.gradient(g_loss, generator.trainable_variables)
d_grads = tape.gradient(d_loss, discriminator.trainable_variables)
del tape
g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))
