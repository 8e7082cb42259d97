# values: exact
# note: inside fit's traced train_step Keras's crossentropy finds any Sigmoid op's logits (output.op.type), tf.nn.sigmoid's too, and computes from them; run eagerly it clips the probabilities (the first sample's saturated sigmoid passes no gradient)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf


class M(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d = tf.keras.layers.Dense(2, kernel_initializer="ones")

    def call(self, x):
        return tf.nn.sigmoid(self.d(x))


model = M()
model.compile(optimizer="sgd", loss="binary_crossentropy")
model.fit(np.array([[10.0, 10.0], [-1.0, 0.5]]), np.array([[0.0, 1.0], [1.0, 0.0]]), verbose=0)
model2 = M()
model2.compile(optimizer="sgd", loss="binary_crossentropy", run_eagerly=True)
model2.fit(np.array([[10.0, 10.0], [-1.0, 0.5]]), np.array([[0.0, 1.0], [1.0, 0.0]]), verbose=0)
