# values: exact
# note: unconnected_gradients=ZERO for a Keras 3 variable the target does not use: TensorFlow
# note: 2.21 fails inside the gradient (its zeros take the variable's string dtype)
import tensorflow as tf

layer = tf.keras.layers.Dense(2, kernel_initializer="ones")
layer.build((None, 2))
with tf.GradientTape() as tape:
    loss = tf.constant(2.0) * 3.0
grads = tape.gradient(loss, layer.trainable_variables, unconnected_gradients="zero")
