import tensorflow as tf

tf.compat.v1.disable_eager_execution()

input1 = tf.Variable([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="input1")
input2 = tf.Variable([2.0, 3.0, 4.0, 6.0, 8.0, 9.0], name="input2")
values_range = tf.constant([0.0, 10.0], dtype=tf.float32)
source_hist = tf.histogram_fixed_width(tf.cast(input1, tf.float32), values_range, 11)
template_hist = tf.histogram_fixed_width(tf.cast(input2, tf.float32), values_range, 11)
source_hist = tf.cast(source_hist, tf.float32)
template_hist = tf.cast(template_hist, tf.float32)
loss = 2 * tf.nn.l2_loss(source_hist - template_hist)
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    train_step = tf.compat.v1.train.AdamOptimizer(0.001).minimize(loss)
