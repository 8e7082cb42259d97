import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
inputs = tf.keras.Input(shape=(6, 6, 1))
conv = tf.keras.layers.Conv2D(2, 3, activation="relu", name="last_conv")(inputs)
flat = tf.keras.layers.GlobalAveragePooling2D()(conv)
outputs = tf.keras.layers.Dense(3, activation="softmax")(flat)
cam_model = tf.keras.Model(inputs, [conv, outputs])

image = np.random.rand(1, 6, 6, 1).astype("float32")
with tf.GradientTape() as tape:
    conv_out, predictions = cam_model(image)
    class_out = tf.argmax(predictions, axis=-1)
grads = tape.gradient(class_out, conv_out)
print(grads)
