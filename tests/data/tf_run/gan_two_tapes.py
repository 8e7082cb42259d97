import tensorflow as tf

g_w = tf.Variable([[0.5, -0.3], [0.2, 0.8]])
d_w = tf.Variable([[1.0], [-0.5]])
noise = tf.constant([[0.1, 0.9], [-0.4, 0.3]])
real = tf.constant([[1.0, 1.0], [0.5, 0.2]])

with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
    fake = tf.tanh(tf.matmul(noise, g_w))
    real_score = tf.sigmoid(tf.matmul(real, d_w))
    fake_score = tf.sigmoid(tf.matmul(tf.stop_gradient(fake), d_w))
    gen_loss = -tf.reduce_mean(tf.math.log(fake_score))
    disc_loss = -tf.reduce_mean(tf.math.log(real_score) + tf.math.log(1.0 - fake_score))

gen_grads = gen_tape.gradient(gen_loss, [g_w])
disc_grads = disc_tape.gradient(disc_loss, [d_w])
print(gen_grads, disc_grads)
