# values: exact
# note: the mask of the model's output (Embedding mask_zero, passed on by the GRU with return_sequences and by Dense) weighs the compiled loss: mean squared error over the unmasked steps only (Keras weighs valid entries by total / valid, masked ones by 0)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
# expect: call 0 source #5: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Embedding(5, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.25)),
    tf.keras.layers.GRU(3, return_sequences=True, kernel_initializer="ones",
                        recurrent_initializer=tf.keras.initializers.Constant(0.1)),
    tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(-0.5)),
])
model.compile(optimizer="sgd", loss="mse")
x = np.array([[1, 2, 0, 0], [3, 4, 1, 0], [2, 0, 0, 0]])
y = np.array([[[1.0], [0.5], [9.0], [9.0]], [[0.0], [1.0], [2.0], [9.0]], [[-1.0], [9.0], [9.0], [9.0]]])
model.fit(x, y, batch_size=3, shuffle=False, verbose=0)
