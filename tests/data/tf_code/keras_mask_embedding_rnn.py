# values: exact
# note: Embedding(mask_zero=True) puts `ids != 0` on its output (_keras_mask); a SimpleRNN given it keeps the previous output and state at a masked step (tf.where), so the padding row of the embeddings gets a zero gradient; the LSTM without return_sequences gives the output of the last unmasked step
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 1 source #2: connected
import numpy as np
import tensorflow as tf

ids = np.array([[1, 2, 0, 0], [3, 0, 1, 2]])
emb = tf.keras.layers.Embedding(4, 2, mask_zero=True)
emb.build((None, 4))
emb.set_weights([np.array([[0.0, 0.1], [0.2, 0.3], [0.4, 0.5], [0.6, 0.7]])])
rnn = tf.keras.layers.SimpleRNN(3, return_sequences=True, kernel_initializer="ones",
                                recurrent_initializer=tf.keras.initializers.Constant(0.5))
with tf.GradientTape() as tape:
    e = emb(ids)
    out = rnn(e)
    loss = tf.reduce_sum(out * tf.constant([1.0, -1.0, 0.5]))
print(e._keras_mask, out._keras_mask)
print(tape.gradient(loss, emb.trainable_variables + rnn.trainable_variables))

lstm = tf.keras.layers.LSTM(2, kernel_initializer=tf.keras.initializers.Constant(0.3),
                            recurrent_initializer=tf.keras.initializers.Constant(-0.2))
with tf.GradientTape() as tape:
    last = lstm(emb(ids))
    loss = tf.reduce_sum(last * tf.constant([2.0, -1.0]))
print(tape.gradient(loss, lstm.trainable_variables))
