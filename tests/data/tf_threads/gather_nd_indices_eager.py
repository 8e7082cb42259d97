import tensorflow as tf

params = tf.constant([[1.0, 2.0], [3.0, 4.0]])
indices = tf.constant([[0, 1], [1, 0]])
with tf.GradientTape() as tape:
    tape.watch(indices)
    picked = tf.gather_nd(params, indices)
    loss = tf.reduce_sum(picked)
print(tape.gradient(loss, indices))
