# values: exact
# note: TensorFlow 2.21's CPU Conv2D kernel supports NHWC only: a channels_first Conv2D raises when called
import tensorflow as tf

conv = tf.keras.layers.Conv2D(2, 3, data_format="channels_first")
x = tf.ones((1, 3, 5, 5))
with tf.GradientTape() as tape:
    y = conv(x)
    loss = tf.reduce_sum(y)
print(tape.gradient(loss, conv.trainable_variables))
