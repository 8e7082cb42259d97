# https://github.com/tensorflow/tensorflow/issues/62797
import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(6, 6, 1))
conv = tf.keras.layers.Conv2D(2, 3, activation="relu", name="last_conv")(inputs)
flat = tf.keras.layers.GlobalAveragePooling2D()(conv)
outputs = tf.keras.layers.Dense(3, activation="softmax")(flat)
model = tf.keras.Model(inputs, outputs)
conv_model = tf.keras.Model(inputs, conv)

image = tf.constant(np.random.rand(1, 6, 6, 1).astype("float32"))
with tf.GradientTape() as tape:
    last_conv_output = conv_model(image)
    preds = model(image)
    top_class_index = 1
    class_channel = preds[:, top_class_index]
grads = tape.gradient(class_channel, last_conv_output)
print(grads)
