# values: exact
# note: Keras 3 builds a Sequential whose first layer has input_shape= on add: its variables
# note: exist before the first call
# expect: call 0 source weights[0]: connected
import tensorflow as tf

model = tf.keras.Sequential()
model.add(tf.keras.layers.Dense(2, input_shape=(2,), kernel_initializer="ones"))
model.add(tf.keras.layers.Dense(1, kernel_initializer="ones"))
weights = list(model.trainable_variables)
x = tf.constant([[1.0, -3.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x) * 2.0)
g = tape.gradient(loss, weights)
