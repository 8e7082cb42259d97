import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
features = tf.constant(np.random.rand(4, 3).astype("float32"))
labels = tf.constant([[1.0], [0.0], [1.0], [0.0]])


def custom_loss(output, prediction):
    correct_count = tf.math.count_nonzero(tf.math.equal(tf.round(prediction), output))
    return 1.0 - tf.cast(correct_count, tf.float32) / prediction.shape[0]


with tf.GradientTape() as tape:
    loss = custom_loss(labels, model(features))
print(tape.gradient(loss, model.trainable_weights))
