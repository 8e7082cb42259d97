import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(4,))
common = tf.keras.layers.Dense(8, activation="relu")(inputs)
action = tf.keras.layers.Dense(2, activation="softmax")(common)
critic = tf.keras.layers.Dense(1)(common)
model = tf.keras.Model(inputs=inputs, outputs=[action, critic])
optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)

action_probs_history, critic_value_history, returns = [], [], [1.0, 0.5, 0.25]
for step in range(3):
    state = tf.constant(np.random.rand(1, 4).astype("float32"))
    action_probs, critic_value = model(state)
    critic_value_history.append(critic_value[0, 0])
    action_probs_history.append(tf.math.log(action_probs[0, 0]))

with tf.GradientTape() as tape:
    actor_losses, critic_losses = [], []
    for log_prob, value, ret in zip(action_probs_history, critic_value_history, returns):
        diff = ret - value
        actor_losses.append(-log_prob * diff)
        critic_losses.append(tf.square(diff))
    loss_value = sum(actor_losses) + sum(critic_losses)
grads = tape.gradient(loss_value, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
