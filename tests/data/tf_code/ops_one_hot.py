# values: exact
# expect: call 0 source logits: connected
import tensorflow as tf

labels = tf.constant([0, 2])
logits = tf.Variable([[1.0, 0.5, -0.5], [0.2, 0.2, 0.6]])

with tf.GradientTape() as tape:
    targets = tf.one_hot(labels, depth=3)
    log_probs = tf.nn.log_softmax(logits)
    loss = -tf.reduce_mean(tf.reduce_sum(targets * log_probs, axis=1))

print(tape.gradient(loss, logits))
