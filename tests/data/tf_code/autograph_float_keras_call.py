# values: exact
# note: AutoGraph converts a tf.function's own code (float() of a tensor there is a cast) but not what Keras calls: float() of a graph tensor inside a layer's call raises TypeError; gradcli refuses it, naming --run
import tensorflow as tf


class Doubler(tf.keras.layers.Layer):
    def call(self, v):
        return float(v) * 2.0


layer = Doubler()
x = tf.Variable(2.0)


@tf.function
def f(v):
    return layer(v)


with tf.GradientTape() as tape:
    y = f(x * 1.0)
print(tape.gradient(y, x))
