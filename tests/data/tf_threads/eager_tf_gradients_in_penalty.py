# https://github.com/eriklindernoren/Keras-GAN/issues/215
import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
critic = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
averaged = tf.constant(np.random.rand(3, 4).astype("float32"))


def gradient_penalty_loss(y_pred, averaged_samples):
    gradients = tf.gradients(y_pred, averaged_samples)[0]
    norm = tf.sqrt(tf.reduce_sum(tf.square(gradients), axis=1))
    return tf.reduce_mean(tf.square(1.0 - norm))


pred = critic(averaged)
penalty = gradient_penalty_loss(pred, averaged)
print(penalty)
