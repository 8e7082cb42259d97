# values: exact
# note: Keras 3 removed Layer.add_metric: calling it raises NotImplementedError
import tensorflow as tf


class Tracked(tf.keras.layers.Layer):
    def call(self, inputs):
        self.add_metric(tf.reduce_mean(inputs), name="mean")
        return inputs


layer = Tracked()
x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = layer(x)
print(tape.gradient(y, x))
