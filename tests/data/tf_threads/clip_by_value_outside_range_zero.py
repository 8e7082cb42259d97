import tensorflow as tf

x = tf.Variable([-2.0, 3.0])
with tf.GradientTape() as tape:
    clipped = tf.clip_by_value(x, -1.0, 1.0)
    loss = tf.reduce_sum(clipped)
print(tape.gradient(loss, x))
