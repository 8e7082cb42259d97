# https://github.com/tensorflow/tensorflow/issues/7641
import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
patches = tf.constant(np.random.rand(1, 8, 8, 1).astype("float32"))
w = tf.Variable(2.0)
with tf.GradientTape() as tape:
    scaled = w * patches
    blurred = tf.image.resize(scaled, [4, 4], method=tf.image.ResizeMethod.BICUBIC)
    blurred = tf.image.resize(blurred, [8, 8], method=tf.image.ResizeMethod.BICUBIC)
    loss = tf.reduce_mean(tf.square(blurred - patches))
print(tape.gradient(loss, w))
