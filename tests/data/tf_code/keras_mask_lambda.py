# values: exact
# note: Lambda(mask=) sets the output mask (a function of (inputs, mask), or a tensor); a Lambda function that takes mask= gets the input's mask from Keras; a Lambda without mask= drops it
# expect: call 0 source #0: connected
import numpy as np
import tensorflow as tf

ids = np.array([[1, 2, 0], [3, 0, 0]])
emb = tf.keras.layers.Embedding(4, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.5))
scale = tf.keras.layers.Lambda(lambda t: t * 3.0, mask=lambda t, m: m)
keep = tf.keras.layers.Lambda(lambda t, mask: t * tf.cast(mask, t.dtype)[:, :, None])
rnn = tf.keras.layers.SimpleRNN(2, kernel_initializer="ones", recurrent_initializer=tf.keras.initializers.Constant(0.25))
with tf.GradientTape() as tape:
    e = emb(ids)
    s = scale(e)
    k = keep(e)
    loss = tf.reduce_sum(rnn(s)) + tf.reduce_sum(rnn(k))
print(tape.gradient(loss, emb.trainable_variables))
