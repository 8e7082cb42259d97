# values: exact
# note: arguments that are tensors of exactly the input_signature's dtype and shape: read as without it
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.Variable(2.0)


@tf.function(input_signature=[tf.TensorSpec(shape=[2], dtype=tf.float32)])
def f(v):
    return tf.reduce_sum(v * x)


with tf.GradientTape() as tape:
    y = f(tf.constant([3.0, -1.0])) + f(tf.constant([0.5, 0.25]))
print(tape.gradient(y, x))
