# values: exact
# note: refused: a tape outside the call records it as one op, whose outputs do not depend on
# note: one another: TensorFlow gives None for the loss with respect to the returned hidden
import tensorflow as tf


@tf.function
def forward(x):
    hidden = tf.tanh(2.0 * x)
    return tf.reduce_sum(hidden * hidden), hidden


x = tf.constant([0.5, -1.0, 0.25])
with tf.GradientTape() as tape:
    tape.watch(x)
    loss, hidden = forward(x)
g = tape.gradient(loss, hidden)
