# values: exact
# note: refused: TensorFlow gives an empty (0, 4) Jacobian; the reader called it zero
import tensorflow as tf

variable = tf.Variable(1.0)
inputs = tf.zeros((0, 4))
with tf.GradientTape() as tape:
    outputs = variable * tf.pow(inputs, 2.0)
j = tape.jacobian(outputs, variable)
