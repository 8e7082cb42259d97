# https://github.com/tensorflow/tensorflow/issues/37795
import tensorflow as tf

variable = tf.Variable(1.0)
inputs = tf.zeros((0, 4))
with tf.GradientTape(persistent=True) as tape:
    outputs = variable * tf.pow(inputs, 2.0)
jacobian_pfor = tape.jacobian(outputs, variable, experimental_use_pfor=True)
print(jacobian_pfor.shape)
jacobian_loop = tape.jacobian(outputs, variable, experimental_use_pfor=False)
print(jacobian_loop.shape)
