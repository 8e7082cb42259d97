# values: structure
# note: random initial weights (glorot_uniform kernel, orthogonal recurrent kernel): the loss uses the LSTM's output but not the GRU's, whose weights get None (no path); the LSTM's output at the last step depends on every step
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: no_path
# expect: call 0 source #4: no_path
# expect: call 0 source #5: no_path
import tensorflow as tf


class TwoRNNs(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.lstm = tf.keras.layers.LSTM(3)
        self.gru = tf.keras.layers.GRU(2)
        self.head = tf.keras.layers.Dense(1)

    def call(self, x):
        unused = self.gru(x)
        return self.head(self.lstm(x)), unused


model = TwoRNNs()
x = tf.random.normal((4, 5, 2))
with tf.GradientTape() as tape:
    y, _ = model(x)
    loss = tf.reduce_mean(y**2)
grads = tape.gradient(loss, model.trainable_variables)
print([v.path for v in model.trainable_variables])
print([g is None for g in grads])
