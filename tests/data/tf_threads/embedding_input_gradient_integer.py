import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential(
    [
        tf.keras.Input(shape=(3,), dtype="int32"),
        tf.keras.layers.Embedding(5, 2),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(1),
    ]
)
tokens = tf.constant(np.array([[1, 2, 4]], dtype="int32"))
with tf.GradientTape() as tape:
    tape.watch(tokens)
    out = model(tokens)
print(tape.gradient(out, tokens))
