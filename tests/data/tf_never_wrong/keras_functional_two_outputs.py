# values: exact
# note: a functional model with two heads; the loss reads only the first
# expect: call 0 source model.trainable_variables[0]: connected
import tensorflow as tf

inp = tf.keras.Input(shape=(2,))
h = tf.keras.layers.Dense(2, kernel_initializer="ones", activation="relu")(inp)
out_a = tf.keras.layers.Dense(1, kernel_initializer="ones", name="a")(h)
out_b = tf.keras.layers.Dense(1, kernel_initializer="ones", name="b")(h)
model = tf.keras.Model(inp, [out_a, out_b])
x = tf.constant([[1.0, -0.5]])
with tf.GradientTape() as tape:
    pa, pb = model(x)
    loss = tf.reduce_sum(pa * 3.0)
g = tape.gradient(loss, model.trainable_variables)
