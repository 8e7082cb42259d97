# values: exact
# note: Keras fills in mask= only when the call has a single tensor argument: an RNN called with initial_state= (a second tensor argument) does not get its input's mask, so every step runs; passing mask= explicitly masks the steps
# expect: call 0 source h0: connected
# expect: call 1 source h0: connected
import numpy as np
import tensorflow as tf

ids = np.array([[1, 2, 0], [3, 0, 0]])
emb = tf.keras.layers.Embedding(4, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.5))
rnn = tf.keras.layers.SimpleRNN(2, return_sequences=True, kernel_initializer="ones",
                                recurrent_initializer=tf.keras.initializers.Constant(0.25))
h0 = tf.constant([[0.1, 0.2], [0.3, 0.4]])
with tf.GradientTape() as tape:
    tape.watch(h0)
    out = rnn(emb(ids), initial_state=[h0])
    loss = tf.reduce_sum(out)
print(tape.gradient(loss, h0))

with tf.GradientTape() as tape:
    tape.watch(h0)
    e = emb(ids)
    out = rnn(e, initial_state=[h0], mask=e._keras_mask)
    loss = tf.reduce_sum(out)
print(tape.gradient(loss, h0))
