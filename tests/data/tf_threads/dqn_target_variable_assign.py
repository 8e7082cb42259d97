import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
states = tf.constant(np.random.rand(2, 3).astype("float32"))
actions, rewards, gamma = [0, 1], [1.0, 0.5], 0.9

with tf.GradientTape() as tape:
    Q = model(states)
    targets = []
    for i in range(2):
        target = tf.Variable(Q[i])
        new_val = rewards[i] + gamma * tf.reduce_max(Q[i])
        target[actions[i]].assign(new_val)
        targets.append(target)
    loss = tf.reduce_mean(tf.square(tf.stack(targets) - 1.0))
grads = tape.gradient(loss, model.trainable_variables)
print(grads)
