# values: exact
# note: Keras's LayerNormalization does not autocast its input: a float64 input is normalised in float64 (gamma and beta cast to it), then the result is cast to float32
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import numpy as np
import tensorflow as tf

ln = tf.keras.layers.LayerNormalization()
x = tf.Variable([[1.0, 2.0, 4.0], [0.1, -0.3, 0.7]], dtype=tf.float64)
ln(x)
ln.set_weights([np.array([1.5, -0.5, 0.25]), np.array([0.1, 0.2, -0.3])])

with tf.GradientTape() as tape:
    y = ln(x)
    loss = tf.reduce_sum(y * tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))

grads = tape.gradient(loss, [x] + ln.trainable_variables)
