# values: exact
# note: a functional model: Masking, then an LSTM with return_sequences (masked steps repeat the previous output), TimeDistributed(Dense) passing the mask on; the compiled mean absolute error counts only the unmasked steps
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
import numpy as np
import tensorflow as tf

inputs = tf.keras.Input(shape=(3, 2))
masked = tf.keras.layers.Masking()(inputs)
seq = tf.keras.layers.LSTM(2, return_sequences=True, kernel_initializer=tf.keras.initializers.Constant(0.4),
                           recurrent_initializer=tf.keras.initializers.Constant(-0.3))(masked)
outputs = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1, kernel_initializer="ones"))(seq)
model = tf.keras.Model(inputs, outputs)
model.compile(optimizer="sgd", loss="mae")
x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]], [[0.5, 0.5], [1.0, -1.0], [0.0, 0.0]]])
y = np.array([[[1.0], [5.0], [0.0]], [[0.5], [-0.5], [5.0]]])
model.fit(x, y, epochs=1, batch_size=2, verbose=0)
