import tensorflow as tf

tf.keras.utils.set_random_seed(0)
variable = tf.Variable(1.0)
inputs = (tf.constant(tf.random.uniform((2, 4))), tf.constant(tf.random.uniform((2, 3))))
with tf.GradientTape(persistent=True) as tape:
    outputs = variable * tf.pow(tf.concat(inputs, axis=-1), 2.0)
jacobians_1 = tape.jacobian(outputs, variable, experimental_use_pfor=True)
jacobians_2 = tape.jacobian(outputs, variable, experimental_use_pfor=False)
print(jacobians_1, jacobians_2)
