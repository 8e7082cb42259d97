# values: exact
# note: model.predict reads its input's values and returns NumPy: leaves_tape at its line
# expect: call 0 source x: leaves_tape line 12
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1, kernel_initializer="ones")
])
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = model.predict(x, verbose=0)
    loss = tf.reduce_sum(y)
g = tape.gradient(loss, x)
