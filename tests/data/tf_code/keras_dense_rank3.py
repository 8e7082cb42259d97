# values: exact
# note: Dense on a rank-3 input (after an Embedding) multiplies the last axis by its kernel
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import numpy as np
import tensorflow as tf

embed = tf.keras.layers.Embedding(5, 3, embeddings_initializer="ones")
dense = tf.keras.layers.Dense(2)
ids = tf.constant([[0, 2, 2], [4, 0, 1]])
embed(ids)
dense(tf.zeros((1, 3, 3)))
embed.set_weights([np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0],
                               [12.0, 13.0, 14.0]]) / 8.0])
dense.set_weights([np.array([[0.5, -1.0], [0.25, 2.0], [-0.75, 1.5]]), np.array([0.125, -0.5])])

with tf.GradientTape() as tape:
    h = dense(embed(ids))
    loss = tf.reduce_sum(tf.square(h))

grads = tape.gradient(loss, embed.trainable_variables + dense.trainable_variables)
