# values: exact
# note: a Sequential with an Input builds every layer at once, a custom layer too (its build sees the batch dimension as None): its weights exist before the first call
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
import tensorflow as tf


class Gain(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.batch = input_shape[0]
        self.g = self.add_weight(name="g", shape=(input_shape[-1],), initializer="ones")

    def call(self, inputs):
        return inputs * self.g


model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    Gain(),
    tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros"),
])
count = len(model.trainable_variables)  # 3, before any call
print(count, model.layers[0].batch)     # 3 None

x = tf.constant([[1.0, -2.0, 0.5], [2.0, 0.0, 1.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(model(x)))

print(tape.gradient(loss, model.trainable_variables))
