# values: exact
# note: a user layer whose call takes mask= gets the mask of its input from Keras (here it averages the unmasked steps itself); a layer defining compute_mask supports masking and sets the mask its next layer sees; a user layer without compute_mask drops the mask (Keras warns), so the SimpleRNN after it runs over every step
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf


class MaskedMean(tf.keras.layers.Layer):
    def call(self, inputs, mask=None):
        weights = tf.cast(mask, inputs.dtype)[:, :, None]
        return tf.reduce_sum(inputs * weights, axis=1) / tf.reduce_sum(weights, axis=1)


class KeepFirstTwo(tf.keras.layers.Layer):
    def call(self, inputs):
        return inputs * 2.0

    def compute_mask(self, inputs, mask=None):
        return tf.logical_and(mask, tf.constant([True, True, False]))


class Plain(tf.keras.layers.Layer):
    def call(self, inputs):
        return inputs + 1.0


ids = np.array([[1, 2, 3], [2, 0, 1]])
emb = tf.keras.layers.Embedding(4, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.1))
rnn = tf.keras.layers.SimpleRNN(2, kernel_initializer=tf.keras.initializers.Constant(0.5), recurrent_initializer=tf.keras.initializers.Constant(0.5))
with tf.GradientTape() as tape:
    e = emb(ids)
    mean = MaskedMean()(KeepFirstTwo()(e))
    loss = tf.reduce_sum(mean ** 2) + tf.reduce_sum(rnn(KeepFirstTwo()(e)))
print(tape.gradient(loss, [emb.embeddings, rnn.cell.kernel]))

with tf.GradientTape() as tape:
    out = rnn(Plain()(emb(ids)))
    loss = tf.reduce_sum(out)
print(tape.gradient(loss, [emb.embeddings, rnn.cell.kernel]))
