# values: exact
# note: a model's call writes its (float32-cast) input into a float64 weight and computes from
# note: the weight: the gradient to the input is None, cut at the write
# expect: call 0 source x: non_differentiable line 13
import tensorflow as tf


class Dummy(tf.keras.Model):
    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(), dtype="float64", initializer="zeros")

    def call(self, x):
        self.w.assign(x)
        return -0.5 * self.w**2


model = Dummy()
model.build(())
x = tf.constant(3.0, dtype=tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x)
    out = model(x)
g = tape.gradient(out, x)
