# values: exact
# note: model.trainable = False before compile: no trainable variables, the gradient list is
# note: empty; the frozen layer's kernel asked for directly is None (not watched)
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")
])
model.trainable = False
model.compile(optimizer="sgd", loss="mse")
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x))
g = tape.gradient(loss, [model.trainable_variables, model.layers[0].kernel])
