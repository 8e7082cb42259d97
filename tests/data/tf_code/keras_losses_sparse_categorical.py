# values: exact
# expect: call 0 source probs: connected
# expect: call 1 source logits: connected
import tensorflow as tf

labels = tf.constant([1, 0])
probs = tf.Variable([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]])
logits = tf.Variable([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]])

scce = tf.keras.losses.SparseCategoricalCrossentropy()
scce_logits = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

with tf.GradientTape(persistent=True) as tape:
    loss_p = scce(labels, probs)
    loss_l = scce_logits(labels, logits)

print(tape.gradient(loss_p, probs))
print(tape.gradient(loss_l, logits))
