import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


class WGAN(tf.keras.Model):
    def __init__(self, critic, generator):
        super().__init__()
        self.critic = critic
        self.generator = generator

    def compile(self, c_optimizer):
        super().compile()
        self.c_optimizer = c_optimizer

    def gradient_penalty(self, real, fake):
        alpha = tf.random.uniform([tf.shape(real)[0], 1], 0.0, 1.0)
        interpolated = real + alpha * (fake - real)
        with tf.GradientTape() as gp_tape:
            gp_tape.watch(interpolated)
            pred = self.critic(interpolated, training=True)
        grads = gp_tape.gradient(pred, [interpolated])[0]
        norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=1))
        return tf.reduce_mean((norm - 1.0) ** 2)

    def train_step(self, real):
        noise = tf.random.normal([tf.shape(real)[0], 2])
        with tf.GradientTape() as tape:
            fake = self.generator(noise, training=True)
            c_cost = tf.reduce_mean(self.critic(fake)) - tf.reduce_mean(self.critic(real))
            c_loss = c_cost + 10.0 * self.gradient_penalty(real, fake)
        c_grads = tape.gradient(c_loss, self.critic.trainable_variables)
        self.c_optimizer.apply_gradients(zip(c_grads, self.critic.trainable_variables))
        return {"c_loss": c_loss}


critic = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1, activation="tanh")])
generator = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3)])
wgan = WGAN(critic, generator)
wgan.compile(c_optimizer=tf.keras.optimizers.Adam(1e-3))
wgan.fit(np.random.rand(4, 3).astype("float32"), epochs=1, batch_size=4, verbose=0)
