# values: structure
# note: the Keras VAE guide's pattern: a Sampling layer drawing tf.random.normal of tf.shape(z_mean)'s batch and dimension, encoder and decoder sub-models (functional, several outputs), isinstance(data, tuple) in train_step, three loss trackers; fit on x alone passes x as data
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #4: connected
# expect: call 0 source #7: connected
import numpy as np
import tensorflow as tf
import keras


class Sampling(keras.layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = tf.shape(z_mean)[0]
        dim = tf.shape(z_mean)[1]
        epsilon = tf.random.normal(shape=(batch, dim))
        return z_mean + tf.exp(0.5 * z_log_var) * epsilon


encoder_inputs = keras.Input(shape=(6,))
h = keras.layers.Dense(4, activation="relu")(encoder_inputs)
z_mean = keras.layers.Dense(2, name="z_mean")(h)
z_log_var = keras.layers.Dense(2, name="z_log_var")(h)
z = Sampling()([z_mean, z_log_var])
encoder = keras.Model(encoder_inputs, [z_mean, z_log_var, z], name="encoder")

latent_inputs = keras.Input(shape=(2,))
decoder_outputs = keras.layers.Dense(6, activation="sigmoid")(latent_inputs)
decoder = keras.Model(latent_inputs, decoder_outputs, name="decoder")


class VAE(keras.Model):
    def __init__(self, encoder, decoder, **kwargs):
        super().__init__(**kwargs)
        self.encoder = encoder
        self.decoder = decoder
        self.total_loss_tracker = keras.metrics.Mean(name="total_loss")
        self.reconstruction_loss_tracker = keras.metrics.Mean(name="reconstruction_loss")
        self.kl_loss_tracker = keras.metrics.Mean(name="kl_loss")

    @property
    def metrics(self):
        return [self.total_loss_tracker, self.reconstruction_loss_tracker, self.kl_loss_tracker]

    def train_step(self, data):
        if isinstance(data, tuple):
            data = data[0]
        with tf.GradientTape() as tape:
            z_mean, z_log_var, z = self.encoder(data)
            reconstruction = self.decoder(z)
            reconstruction_loss = tf.reduce_mean(
                keras.losses.binary_crossentropy(data, reconstruction)
            )
            kl_loss = -0.5 * (1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var))
            kl_loss = tf.reduce_mean(tf.reduce_sum(kl_loss, axis=1))
            total_loss = reconstruction_loss + kl_loss
        grads = tape.gradient(total_loss, self.trainable_weights)
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights))
        self.total_loss_tracker.update_state(total_loss)
        self.reconstruction_loss_tracker.update_state(reconstruction_loss)
        self.kl_loss_tracker.update_state(kl_loss)
        return {m.name: m.result() for m in self.metrics}


vae = VAE(encoder, decoder)
vae.compile(optimizer=keras.optimizers.Adam())
data = np.random.rand(8, 6).astype("float32")
vae.fit(data, epochs=1, batch_size=4, verbose=0)
