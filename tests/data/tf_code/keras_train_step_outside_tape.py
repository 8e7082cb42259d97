# values: exact
# note: a GAN-style generator step whose fake images are made BEFORE the tape opens: the generator's weights are None (Keras's optimizer then raises, as every gradient is None), while the discriminator step in the same train_step is fine; run_eagerly=True
# expect: call 0 source self.discriminator.trainable_weights[0]: connected
# expect: call 0 source self.discriminator.trainable_weights[1]: connected
# expect: call 1 source self.generator.trainable_weights[0]: outside_tape line 32
# expect: call 1 source self.generator.trainable_weights[1]: outside_tape line 32
import numpy as np
import tensorflow as tf
import keras


class TwoStep(keras.Model):
    def __init__(self):
        super().__init__()
        self.generator = keras.layers.Dense(3, kernel_initializer="ones", name="gen")
        self.discriminator = keras.layers.Dense(1, kernel_initializer="ones", name="disc")

    def compile(self, d_optimizer, g_optimizer):
        super().compile(run_eagerly=True)
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer

    def train_step(self, data):
        noise, real = data
        with tf.GradientTape() as tape:
            fake = self.generator(noise)
            scores = self.discriminator(tf.concat([fake, real], axis=0))
            d_loss = tf.reduce_mean(scores**2)
        d_grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(d_grads, self.discriminator.trainable_weights))

        fake = self.generator(noise)
        with tf.GradientTape() as tape:
            g_loss = tf.reduce_mean((self.discriminator(fake) - 1.0) ** 2)
        g_grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(g_grads, self.generator.trainable_weights))
        return {"d_loss": d_loss, "g_loss": g_loss}


model = TwoStep()
model.compile(keras.optimizers.SGD(0.0), keras.optimizers.SGD(0.0))
noise = np.array([[0.5, -1.0], [1.0, 0.25]], np.float32)
real = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], np.float32)
model.fit(noise, real, epochs=1, verbose=0)
