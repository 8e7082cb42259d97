# values: exact
# note: tf.keras.layers.RNN(cell): a cell class of the file (the Keras guide's MinimalRNNCell, built with one time step's shape, weights rnn/minimal_rnn_cell/kernel), an LSTMCell over a masked input, a GRUCell with go_backwards and return_state, and an LSTMCell called directly for one step
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 1 source #2: connected
# expect: call 1 source #3: connected
# expect: call 2 source #0: connected
# expect: call 2 source #1: connected
# expect: call 2 source #2: connected
# expect: call 2 source #3: connected
import numpy as np
import tensorflow as tf


class MinimalRNNCell(tf.keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="ones", name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                initializer=tf.keras.initializers.Constant(0.5),
                                                name="recurrent_kernel")

    def call(self, inputs, states):
        prev_output = states[0]
        h = tf.matmul(inputs, self.kernel)
        output = tf.tanh(h + tf.matmul(prev_output, self.recurrent_kernel))
        return output, [output]


x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
rnn = tf.keras.layers.RNN(MinimalRNNCell(2), return_sequences=True)
with tf.GradientTape() as tape:
    tape.watch(x)
    loss = tf.reduce_sum(rnn(x) * tf.constant([1.0, -0.5]))
print([v.path for v in rnn.weights])
print(tape.gradient(loss, rnn.trainable_variables + [x]))

ids = np.array([[1, 2, 0], [3, 0, 0]])
emb = tf.keras.layers.Embedding(4, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.3))
lstm = tf.keras.layers.RNN(tf.keras.layers.LSTMCell(2, kernel_initializer=tf.keras.initializers.Constant(0.4),
                                                    recurrent_initializer=tf.keras.initializers.Constant(-0.2)))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(lstm(emb(ids)) * tf.constant([1.0, 2.0]))
print(tape.gradient(loss, emb.trainable_variables + lstm.trainable_variables))

gru = tf.keras.layers.RNN(tf.keras.layers.GRUCell(2, kernel_initializer="ones", recurrent_initializer=tf.keras.initializers.Constant(0.1)),
                          go_backwards=True, return_state=True)
cell = tf.keras.layers.LSTMCell(2, kernel_initializer="ones", recurrent_initializer="zeros")
with tf.GradientTape() as tape:
    tape.watch(x)
    out, state = gru(x)
    h, (h2, c2) = cell(x[:, 0, :], [tf.zeros((2, 2)), tf.ones((2, 2))])
    loss = tf.reduce_sum(out * state) + tf.reduce_sum(h * c2)
print(tape.gradient(loss, gru.trainable_variables + [x]))
