# https://github.com/tensorflow/tensorflow/issues/48547
import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
state_input = tf.keras.Input(shape=(4,))
common = tf.keras.layers.Dense(8, activation="relu")(state_input)
actor = tf.keras.layers.Dense(2, activation="softmax")(common)
critic = tf.keras.layers.Dense(1)(common)
model = tf.keras.Model(state_input, [actor, critic])

states = tf.constant(np.random.rand(3, 4).astype("float32"))
actions = tf.constant([0, 1, 1])
advantages = tf.constant([0.5, -1.0, 2.0])
with tf.GradientTape() as tape:
    probs, values = model(states)
    picked = tf.gather(probs, actions, batch_dims=1)
    actor_loss = -tf.reduce_mean(tf.math.log(picked) * advantages)
grads = tape.gradient(actor_loss, model.trainable_variables)
print([g is None for g in grads])
