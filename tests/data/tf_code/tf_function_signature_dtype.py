# values: exact
# note: an int32 tensor for an input_signature of float32: TensorFlow does not bind it (TypeError); gradcli refuses the call, naming --run
import tensorflow as tf

x = tf.Variable(2.0)


@tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)])
def f(v):
    return v * x


with tf.GradientTape() as tape:
    y = f(tf.constant(3, dtype=tf.int32))
print(tape.gradient(y, x))
