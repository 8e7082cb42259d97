import tensorflow as tf

y = tf.Variable([1.0, 0.0])
x = tf.Variable([2.0, 0.0])
with tf.GradientTape() as tape:
    angle = tf.where(tf.greater(x, 0.0), tf.atan(y / x), tf.zeros_like(x))
    loss = tf.reduce_sum(angle)
print(tape.gradient(loss, [y, x]))
