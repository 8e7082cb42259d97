# values: exact
# note: Bidirectional merge modes: 'sum', 'mul', 'ave' of the last outputs (GRU, SimpleRNN), None (the pair), return_state (the output, then the forward states, then the backward ones), initial_state split in halves, and a masked input (Embedding mask_zero): with return_sequences the masked steps output zeros (Keras sets zero_output_for_mask), and the output keeps the mask
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
# expect: call 0 source #5: connected
# expect: call 0 source #6: connected
# expect: call 0 source #7: connected
# expect: call 0 source #8: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 1 source #2: connected
# expect: call 1 source #3: connected
# expect: call 1 source #4: connected
# expect: call 1 source #5: connected
# expect: call 1 source #6: connected
# expect: call 2 source #0: connected
# expect: call 2 source #1: connected
# expect: call 2 source #2: connected
# expect: call 2 source #3: connected
# expect: call 2 source #4: connected
# expect: call 2 source #5: connected
# expect: call 2 source #6: connected
import numpy as np
import tensorflow as tf

x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
ones = {"kernel_initializer": tf.keras.initializers.Constant(0.4), "recurrent_initializer": tf.keras.initializers.Constant(0.2)}
gru_sum = tf.keras.layers.Bidirectional(tf.keras.layers.GRU(2, **ones), merge_mode="sum")
rnn_mul = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(2, **ones), merge_mode="mul")
rnn_ave = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(2, **ones), merge_mode="ave")
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(gru_sum(x)) + tf.reduce_sum(rnn_mul(x) * tf.constant([1.0, -2.0])) + tf.reduce_sum(rnn_ave(x) ** 2)
print(tape.gradient(loss, gru_sum.trainable_variables + rnn_mul.trainable_variables[:3]))

pair = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(2, return_state=True, **ones), merge_mode=None)
h0 = tf.constant([[0.5, -0.5], [0.1, 0.2]])
with tf.GradientTape() as tape:
    tape.watch(h0)
    fwd, bwd, h_fwd, h_bwd = pair(x, initial_state=[h0, tf.zeros((2, 2))])
    loss = tf.reduce_sum(fwd) - 2.0 * tf.reduce_sum(bwd) + tf.reduce_sum(h_fwd * h_bwd)
print(len(pair.weights))
print(tape.gradient(loss, pair.trainable_variables + [h0]))

ids = np.array([[1, 2, 0], [3, 0, 0]])
emb = tf.keras.layers.Embedding(4, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.3))
seq = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2, return_sequences=True, **ones))
with tf.GradientTape() as tape:
    out = seq(emb(ids))
    loss = tf.reduce_sum(out * tf.constant([1.0, 2.0, -1.0, 0.5]))
print(out._keras_mask, out)
print(tape.gradient(loss, emb.trainable_variables + seq.trainable_variables))
