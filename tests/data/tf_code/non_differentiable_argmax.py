# values: exact
# expect: call 0 source w: non_differentiable line 12
import numpy as np
import tensorflow as tf

x = tf.constant(np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype=np.float32))
labels = tf.constant([1, 0, 1], dtype=tf.int64)
w = tf.Variable([[1.0, -1.0], [0.5, 2.0]])

with tf.GradientTape() as tape:
    logits = x @ w
    predicted = tf.argmax(logits, axis=1)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(predicted, labels), tf.float32))
    loss = 1.0 - accuracy

print(tape.gradient(loss, w))
