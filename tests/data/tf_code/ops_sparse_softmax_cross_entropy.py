# values: exact
# expect: call 0 source logits: connected
import numpy as np
import tensorflow as tf

labels = tf.constant([2, 0, 1])
logits = tf.Variable(np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0], [0.0, 0.0, 0.0]]))

with tf.GradientTape() as tape:
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_sum(xent)

print(tape.gradient(loss, logits))
