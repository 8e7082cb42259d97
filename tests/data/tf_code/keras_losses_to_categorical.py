# values: exact
# note: keras.utils.to_categorical (NumPy float64, a last axis of size 1 dropped) as the labels of a loss object (converted to float32), keras.config.epsilon()
# expect: call 0 source p: connected
import keras
import numpy as np
import tensorflow as tf

labels = np.array([0, 2, 1])
y = keras.utils.to_categorical(labels, num_classes=3)
y2 = tf.keras.utils.to_categorical([[1], [0], [2]])
p = tf.Variable([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.6, 0.3, 0.1]])
with tf.GradientTape() as tape:
    loss = keras.losses.CategoricalCrossentropy()(y, p) + keras.config.epsilon() * keras.ops.sum(y2 * p)
print(y.dtype, y2.shape, tape.gradient(loss, p))
