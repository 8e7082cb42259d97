# https://github.com/tensorflow/tensorflow/issues/22208
import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
w = tf.Variable(np.random.rand(3, 3, 1, 1).astype("float32"))
images_real = tf.constant(np.random.rand(2, 4, 4, 1).astype("float32"))
images_fake = tf.constant(np.random.rand(2, 4, 4, 1).astype("float32"))
alpha = tf.constant([[[[0.3]]], [[[0.7]]]])

with tf.GradientTape() as outer:
    interpolates = images_real + alpha * (images_fake - images_real)
    with tf.GradientTape() as inner:
        inner.watch(interpolates)
        up = tf.image.resize(interpolates, [8, 8], method="bilinear")
        critic = tf.reduce_sum(tf.nn.conv2d(up, w, 1, "SAME"))
    grads = inner.gradient(critic, interpolates)
    slopes = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1, 2, 3]))
    penalty = tf.reduce_mean((slopes - 1.0) ** 2)
print(outer.gradient(penalty, w))
