# values: structure
# note: a text classifier as the Keras guides write it: Embedding(mask_zero=True), Bidirectional(LSTM(return_sequences=True)), a second LSTM and a sigmoid head in a Sequential with input_shape=, then the functional form with an int32 Input and Bidirectional(GRU); weights from Keras's random initializers (shapes, dtypes and None-ness compared)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
# expect: call 0 source #5: connected
# expect: call 0 source #6: connected
# expect: call 0 source #7: connected
# expect: call 0 source #8: connected
# expect: call 0 source #9: connected
# expect: call 0 source #10: connected
# expect: call 0 source #11: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 1 source #2: connected
# expect: call 1 source #3: connected
# expect: call 1 source #4: connected
# expect: call 1 source #5: connected
# expect: call 1 source #6: connected
# expect: call 1 source #7: connected
# expect: call 1 source #8: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.layers.Embedding(10, 4, mask_zero=True, input_shape=(5,)),
    tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(3, return_sequences=True)),
    tf.keras.layers.LSTM(2),
    tf.keras.layers.Dense(1, activation="sigmoid"),
])
model.compile(optimizer="adam", loss="binary_crossentropy")
x = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0]])
y = np.array([[1.0], [0.0]])
model.fit(x, y, epochs=1, verbose=0)
print([v.path for v in model.trainable_variables])

inp = tf.keras.Input(shape=(5,), dtype="int32")
e = tf.keras.layers.Embedding(10, 4, mask_zero=True)(inp)
h = tf.keras.layers.Bidirectional(tf.keras.layers.GRU(3))(e)
out = tf.keras.layers.Dense(1)(h)
m2 = tf.keras.Model(inp, out)
m2.compile(optimizer="sgd", loss="mse")
m2.fit(x, y, verbose=0)
