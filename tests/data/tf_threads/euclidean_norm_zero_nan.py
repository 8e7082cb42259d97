import tensorflow as tf

x = tf.constant([0.0, 0.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.math.reduce_euclidean_norm(x)
print(tape.gradient(y, x))
