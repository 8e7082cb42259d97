# values: exact
# note: Keras 3 does not track a raw tf.Variable set on a layer: it is not among trainable_variables, yet a tape watches it and asked explicitly gives its gradient
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source layer.shift: connected
import tensorflow as tf


class Biased(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
        self.shift = tf.Variable(2.0)

    def call(self, x):
        return self.dense(x) + self.shift


layer = Biased()
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_sum(layer(x) ** 2)

print(len(layer.trainable_variables))  # 2: the Dense's kernel and bias
print(tape.gradient(loss, layer.trainable_variables))
print(tape.gradient(loss, layer.shift))
