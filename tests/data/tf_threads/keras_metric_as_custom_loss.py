import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
sparse_cc = tf.keras.metrics.SparseCategoricalCrossentropy(from_logits=False)


def custom_loss(y_true, y_pred):
    loss = sparse_cc(y_true, y_pred)
    return loss


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3, activation="softmax")])
features = tf.constant(np.random.rand(5, 4).astype("float32"))
labels = tf.constant([0, 1, 2, 1, 0])
with tf.GradientTape() as tape:
    loss = custom_loss(labels, model(features))
print(tape.gradient(loss, model.trainable_variables))
