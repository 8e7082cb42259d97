# values: exact
# note: TensorFlow registers no gradient for TruncateMod: tape.gradient raises LookupError when
# note: the gradient crosses it (a truncatemod of constants the tape never recorded is fine)
import tensorflow as tf

x = tf.Variable([5.5, -7.0], dtype=tf.float64)
with tf.GradientTape(persistent=True) as tape:
    c = tf.truncatemod(tf.constant([3.5, -2.0], tf.float64), 1.5)
    y = tf.reduce_sum(x * c)
    z = tf.reduce_sum(tf.truncatemod(x, 2.0))
print(tape.gradient(y, x))  # c: [0.5, -0.5]
print(tape.gradient(z, x))  # LookupError
