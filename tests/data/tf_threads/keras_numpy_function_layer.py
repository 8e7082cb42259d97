import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


class MyLayer(tf.keras.layers.Layer):
    def call(self, X):
        def __function(X):
            return np.sinh(X)

        out = tf.numpy_function(__function, [X], tf.float32)
        return tf.reshape(out, (-1, 4))


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), MyLayer(), tf.keras.layers.Dense(2)])
x = tf.constant(np.random.rand(3, 4).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(x)
    loss = tf.reduce_sum(model(x))
print(tape.gradient(loss, x))
