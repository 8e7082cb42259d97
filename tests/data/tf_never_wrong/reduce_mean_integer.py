# values: exact
# note: refused: TensorFlow computes an integer mean (7 // 3 = 2 here); gradcli reads the
# note: mean of floats only
import tensorflow as tf

x = tf.Variable([1.0, 2.0, 4.0])
with tf.GradientTape() as tape:
    n = tf.reduce_mean(tf.constant([1, 2, 4]))
    loss = tf.reduce_sum(x) * tf.cast(n, tf.float32)
g = tape.gradient(loss, x)
