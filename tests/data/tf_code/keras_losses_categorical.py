# values: exact
# expect: call 0 source probs: connected
# expect: call 1 source logits: connected
import tensorflow as tf

y_true = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
probs = tf.Variable([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]])
logits = tf.Variable([[1.0, 2.0, 0.5], [0.0, -1.0, 1.0]])

cce = tf.keras.losses.CategoricalCrossentropy()
cce_logits = tf.keras.losses.CategoricalCrossentropy(from_logits=True)

with tf.GradientTape(persistent=True) as tape:
    loss_p = cce(y_true, probs)
    loss_l = cce_logits(y_true, logits)

print(tape.gradient(loss_p, probs))
print(tape.gradient(loss_l, logits))  # (softmax(logits) - y_true) / 2
