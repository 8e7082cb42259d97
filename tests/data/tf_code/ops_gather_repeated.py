# values: exact
# note: the gradient of tf.gather is an IndexedSlices; repeated indices add up once densified
# expect: call 0 source embeddings: connected
# expect: call 0 source table: connected
import numpy as np
import tensorflow as tf

embeddings = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]))
table = tf.constant([10.0, 20.0, 30.0], dtype=tf.float64)
ids = tf.constant([0, 2, 0])

with tf.GradientTape() as tape:
    tape.watch(table)
    vectors = tf.gather(embeddings, ids)
    bias = tf.gather(table, [1, 1, 2])
    loss = tf.reduce_sum(vectors * vectors) + tf.reduce_sum(bias)

g_emb, g_table = tape.gradient(loss, [embeddings, table])
print(tf.convert_to_tensor(g_emb))
print(tf.convert_to_tensor(g_table))
