# values: exact
# expect: call 0 source probs: connected
# expect: call 1 source logits: connected
import tensorflow as tf

y_true = tf.constant([[1.0], [0.0], [1.0]])
probs = tf.Variable([[0.9], [0.2], [0.6]])
logits = tf.Variable([[2.0], [-1.0], [0.5]])

bce = tf.keras.losses.BinaryCrossentropy()
bce_logits = tf.keras.losses.BinaryCrossentropy(from_logits=True)

with tf.GradientTape(persistent=True) as tape:
    loss_p = bce(y_true, probs)
    loss_l = bce_logits(y_true, logits)

print(tape.gradient(loss_p, probs))
print(tape.gradient(loss_l, logits))  # (sigmoid(logits) - y_true) / 3
