import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(4,))
common = tf.keras.layers.Dense(8, activation="tanh")(inputs)
action = tf.keras.layers.Dense(2, activation="softmax")(common)
critic = tf.keras.layers.Dense(1)(common)
model = tf.keras.Model(inputs=inputs, outputs=[action, critic])

returns = [1.0, 0.5, 0.25]
with tf.GradientTape() as tape:
    actor_losses, critic_losses = [], []
    for ret in returns:
        state = tf.constant(np.random.rand(1, 4).astype("float32"))
        action_probs, value = model(state)
        diff = ret - tf.stop_gradient(value[0, 0])
        actor_losses.append(-tf.math.log(action_probs[0, 0]) * diff)
        critic_losses.append(tf.square(ret - value[0, 0]))
    loss_value = sum(actor_losses) + sum(critic_losses)
grads = tape.gradient(loss_value, model.trainable_variables)
print([g.shape for g in grads])
