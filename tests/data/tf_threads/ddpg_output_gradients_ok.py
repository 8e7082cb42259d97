import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
actor = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1, activation="tanh")])
state_in = tf.keras.Input(shape=(3,))
action_in = tf.keras.Input(shape=(1,))
q = tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([state_in, action_in]))
critic = tf.keras.Model([state_in, action_in], q)
states_batch = tf.constant(np.random.rand(4, 3).astype("float32"))

with tf.GradientTape() as tape:
    a = actor(states_batch)
    tape.watch(a)
    q = critic([states_batch, a])
dq_da = tape.gradient(q, a)

with tf.GradientTape() as tape:
    a = actor(states_batch)
    theta = actor.trainable_variables
da_dtheta = tape.gradient(a, theta, output_gradients=-dq_da)
print(da_dtheta)
