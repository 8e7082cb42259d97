# values: exact
# note: a model compiled without a loss trains on what its call adds with self.add_loss (fit without y): Keras's compute_loss sums model.losses
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import numpy as np
import tensorflow as tf


class AutoEncoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encode = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(0.5))
        self.decode = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")

    def call(self, x):
        code = self.encode(x)
        rebuilt = self.decode(code)
        self.add_loss(tf.reduce_mean(tf.square(x - rebuilt)))
        self.add_loss(0.1 * tf.reduce_mean(tf.abs(code)))
        return rebuilt


model = AutoEncoder()
model.compile(optimizer="sgd", run_eagerly=True)
model.fit(np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]]), epochs=1, verbose=0)
