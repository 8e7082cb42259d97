# https://github.com/tensorflow/tensorflow/issues/36255
import tensorflow as tf


@tf.function
def forward(x):
    hidden = tf.tanh(2.0 * x)
    loss = tf.reduce_sum(hidden * hidden)
    return loss, hidden


x = tf.constant([0.5, -1.0, 0.25])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    loss, hidden = forward(x)
print(tape.gradient(loss, hidden))
print(tape.gradient(loss, x))
