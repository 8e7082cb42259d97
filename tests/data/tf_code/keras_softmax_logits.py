# values: exact
# note: Keras 3 keeps a sigmoid/softmax activation's input on its output (_keras_logits): a crossentropy loss given that output uses the logits with from_logits=True
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf

softmax_layer = tf.keras.layers.Dense(3, activation="softmax")
softmax_layer.build((None, 2))
softmax_layer.set_weights([np.array([[1.0, -1.0, 0.5], [0.5, 2.0, -1.0]]), np.array([0.0, 0.1, 0.2])])
sigmoid_layer = tf.keras.layers.Dense(1, activation=tf.keras.activations.sigmoid)
sigmoid_layer.build((None, 2))
sigmoid_layer.set_weights([np.array([[3.0], [-2.0]]), np.array([20.0])])

x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
onehot = tf.one_hot([1, 0], depth=3)
binary = tf.constant([[0.0], [0.0]])  # sigmoid(19) is 1.0 in float32: only the logits give a gradient
cce = tf.keras.losses.CategoricalCrossentropy()
bce = tf.keras.losses.BinaryCrossentropy()

with tf.GradientTape(persistent=True) as tape:
    loss_c = cce(onehot, softmax_layer(x))
    loss_b = bce(binary, sigmoid_layer(x))

print(tape.gradient(loss_c, softmax_layer.trainable_variables))
print(tape.gradient(loss_b, sigmoid_layer.trainable_weights))
