import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


class GAN(tf.keras.Model):
    def __init__(self, discriminator, generator):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    def compile(self, g_optimizer):
        super().compile()
        self.g_optimizer = g_optimizer

    def train_step(self, real_images):
        noise = tf.random.normal([tf.shape(real_images)[0], 2])
        with tf.GradientTape() as tape:
            fake = tf.stop_gradient(self.generator(noise))
            predictions = self.discriminator(fake)
            g_loss = self.loss_fn(tf.ones_like(predictions), predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
        return {"g_loss": g_loss}


discriminator = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
generator = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3)])
gan = GAN(discriminator, generator)
gan.compile(g_optimizer=tf.keras.optimizers.Adam(1e-3))
gan.fit(np.random.rand(4, 3).astype("float32"), epochs=1, batch_size=4, verbose=0)
