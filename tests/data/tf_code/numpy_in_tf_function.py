# values: exact
# note: .numpy() inside a tf.function: the tensor is symbolic while tracing, so it has no .numpy()
# expect: call 0 source w: connected
import tensorflow as tf

w = tf.Variable(2.0)
x = tf.constant([1.0, 2.0])

with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * x)
print(tape.gradient(loss, w))


@tf.function
def scaled_loss():
    return tf.reduce_sum(w * x).numpy() * 2.0


with tf.GradientTape() as tape:
    loss = scaled_loss()
print(tape.gradient(loss, w))
