# values: exact
# note: an id >= input_dim: Keras's take maps only negative ids, and TensorFlow's CPU gather raises
import tensorflow as tf

emb = tf.keras.layers.Embedding(3, 2)
with tf.GradientTape() as tape:
    v = emb(tf.constant([0, 3]))
    loss = tf.reduce_sum(v)

print(tape.gradient(loss, emb.trainable_variables))
