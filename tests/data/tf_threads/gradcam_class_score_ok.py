import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(6, 6, 1))
conv = tf.keras.layers.Conv2D(2, 3, activation="tanh", name="last_conv")(inputs)
flat = tf.keras.layers.GlobalAveragePooling2D()(conv)
outputs = tf.keras.layers.Dense(3, activation="softmax")(flat)
cam_model = tf.keras.Model(inputs, [conv, outputs])

image = np.random.rand(1, 6, 6, 1).astype("float32")
with tf.GradientTape() as tape:
    conv_out, predictions = cam_model(image)
    top = int(np.argmax(predictions[0]))
    class_channel = predictions[:, top]
grads = tape.gradient(class_channel, conv_out)
pooled = tf.reduce_mean(grads, axis=(0, 1, 2))
print(pooled)
