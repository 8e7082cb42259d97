# values: exact
# note: Keras's Embedding gathers rows (a negative id counts from the end, as Keras's take does); tape.gradient gives an IndexedSlices, zero on rows 1 and 3 once densified, and row 0 twice
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

emb = tf.keras.layers.Embedding(5, 2)
dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
ids = tf.constant([[0, 2], [0, -1]])
emb(ids)
emb.set_weights([np.array([[(2 * r + c) / 4.0 for c in range(2)] for r in range(5)])])

with tf.GradientTape() as tape:
    vectors = emb(ids)
    loss = tf.reduce_sum(dense(tf.reshape(vectors, (2, 4))) ** 2)

grads = tape.gradient(loss, [emb.embeddings, dense.kernel])
print(emb.embeddings.path)
print(tf.convert_to_tensor(grads[0]))
