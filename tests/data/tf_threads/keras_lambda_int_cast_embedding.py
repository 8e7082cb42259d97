import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
num_indices = 10
input_layer = tf.keras.Input(shape=(3,))
branch = tf.keras.layers.Dense(num_indices, activation="tanh")(input_layer)
branch = tf.keras.layers.Rescaling(5, 5)(branch)
branch = tf.keras.layers.Lambda(lambda x: tf.clip_by_value(tf.cast(x, tf.int32), 0, 9))(branch)
branch = tf.keras.layers.Embedding(num_indices, 2)(branch)
branch = tf.keras.layers.Flatten()(branch)
dense_branch = tf.keras.layers.Dense(2, activation="relu")(input_layer)
final = tf.keras.layers.concatenate([dense_branch, branch])
final_out = tf.keras.layers.Dense(1)(final)
model = tf.keras.Model(inputs=input_layer, outputs=final_out)
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(4, 3), np.random.rand(4, 1), epochs=1, batch_size=4, verbose=0)
