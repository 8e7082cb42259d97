import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
embedding = tf.keras.layers.Embedding(4, 3)
ids = tf.constant([[0, 2]])
with tf.GradientTape() as tape:
    looked_up = embedding(ids)
    scores = tf.matmul(tf.reduce_mean(looked_up, axis=1), embedding.embeddings, transpose_b=True)
    loss = tf.reduce_sum(tf.nn.log_softmax(scores)[:, 1])
grads = tape.gradient(loss, embedding.trainable_variables)
print(grads)
