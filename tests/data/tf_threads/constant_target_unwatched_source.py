import tensorflow as tf

ones = tf.ones([1, 4, 4, 1], tf.float32)
with tf.GradientTape() as tape:
    class_channel = tf.constant([4.4328732], dtype=tf.float32)
    grads = tape.gradient(class_channel, ones)
    print("grads: ", grads)
