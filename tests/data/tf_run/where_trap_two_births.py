import tensorflow as tf

x = tf.constant([1.5, -0.5])
alpha = tf.Variable(1.0)
with tf.GradientTape() as tape:
    logs = tf.math.log(x)
    roots = tf.sqrt(x)
    y = tf.reduce_sum(tf.where(x > 0, alpha * (logs + roots), tf.zeros_like(x)))
print(tape.gradient(y, alpha))
