import tensorflow as tf

w = tf.Variable([0.4, 1.6, 2.5])

with tf.GradientTape() as tape:
    scaled = w * 3.0
    counts = tf.cast(scaled, tf.int32)
    loss = tf.reduce_sum(tf.cast(counts, tf.float32))

print(tape.gradient(loss, w))
