# values: structure
# note: tf.random.uniform with an integer dtype needs maxval; the random indices pick rows of the table (rows never picked get zeros in TensorFlow's dense gradient); np.random.randint data too
# expect: call 0 source table: connected
# expect: call 0 source unused: no_path
import numpy as np
import tensorflow as tf

tf.random.set_seed(1)
table = tf.Variable(tf.random.normal([10, 4]))
unused = tf.Variable(tf.zeros([4]))
ids = tf.random.uniform([6], minval=0, maxval=10, dtype=tf.int32)
noise = np.random.randint(0, 3, size=(6, 4)).astype(np.float32)

with tf.GradientTape() as tape:
    rows = tf.gather(table, ids)
    loss = tf.reduce_sum((rows + noise) ** 2)

grads = tape.gradient(loss, [table, unused])
print(grads[0])
bad = tf.random.uniform([2], dtype=tf.int64)
