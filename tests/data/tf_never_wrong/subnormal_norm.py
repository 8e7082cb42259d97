# values: exact
# note: 1e-19 squared is subnormal in float32: TensorFlow's CPU kernels flush it to zero, so the
# note: norm is 0 and its gradient inf (NumPy keeps the subnormal and gives 1)
import tensorflow as tf

x = tf.Variable([[1.0], [1e-19]])
with tf.GradientTape() as tape:
    z = tf.norm(x, axis=1)
    loss = tf.reduce_sum(z)
g = tape.gradient(loss, x)
