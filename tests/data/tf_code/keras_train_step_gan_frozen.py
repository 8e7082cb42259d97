# values: structure
# note: the Keras GAN guide: a compile override with two optimizers and a loss function (super().compile() with no loss), generator and discriminator sub-models, random latent vectors of tf.shape(real_images)[0] rows, two tapes in one train_step; fit on a dataset of images only passes the batch itself as data. The discriminator is frozen (trainable=False) the Keras 2 way before the GAN is made: Keras 3 then lists no discriminator weights, so the discriminator's step gets an empty list of gradients and Keras's apply_gradients raises at once (unpacking zip of nothing)
import numpy as np
import tensorflow as tf
import keras

latent_dim = 4
discriminator = keras.Sequential(
    [keras.Input(shape=(6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)],
    name="discriminator",
)
generator = keras.Sequential(
    [keras.Input(shape=(latent_dim,)), keras.layers.Dense(8, activation="relu"),
     keras.layers.Dense(6, activation="tanh")],
    name="generator",
)
discriminator.trainable = False


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def train_step(self, real_images):
        batch_size = tf.shape(real_images)[0]
        random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
        generated_images = self.generator(random_latent_vectors)
        combined_images = tf.concat([generated_images, real_images], axis=0)
        labels = tf.concat([tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0)
        with tf.GradientTape() as tape:
            predictions = self.discriminator(combined_images)
            d_loss = self.loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
        self.d_optimizer.apply_gradients(zip(grads, self.discriminator.trainable_weights))

        random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
        misleading_labels = tf.zeros((batch_size, 1))
        with tf.GradientTape() as tape:
            predictions = self.discriminator(self.generator(random_latent_vectors))
            g_loss = self.loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, self.generator.trainable_weights)
        self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))

        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
gan.compile(
    d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
    g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
    loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
)
images = np.random.rand(8, 6).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices(images).batch(4)
gan.fit(dataset, epochs=1, verbose=0)
