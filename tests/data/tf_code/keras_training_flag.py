# values: exact
# note: Keras 3 passes the outer call's training= down to inner layers whose call takes training (here, called without it); a call without training gets its signature's default
# expect: call 0 source #0: connected
# expect: call 1 source #0: connected
import tensorflow as tf


class Noisy(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

    def call(self, inputs, training=None):
        if training:
            return inputs * self.w * 3.0
        return inputs * self.w


class Outer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = Noisy()

    def call(self, x):
        return self.inner(x)


model = Outer()
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape(persistent=True) as tape:
    trained = tf.reduce_sum(model(x, training=True))
    inferred = tf.reduce_sum(model(x))

print(tape.gradient(trained, model.trainable_variables))
print(tape.gradient(inferred, model.trainable_variables))
