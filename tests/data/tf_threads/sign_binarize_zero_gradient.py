import tensorflow as tf

w = tf.Variable([[0.3, -0.7], [1.5, -0.2]])
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    clipped = tf.clip_by_value(w, -1.0, 1.0)
    binary = tf.sign(clipped)
    loss = tf.reduce_sum(tf.matmul(x, binary))
print(tape.gradient(loss, w))
