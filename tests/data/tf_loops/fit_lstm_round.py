import numpy as np
import keras
x = np.linspace(-1, 1, 48, dtype=np.float32).reshape(4, 3, 4)
y = np.ones((4, 1), dtype=np.float32)
inp = keras.Input((3, 4))
seq = keras.layers.LSTM(5)(inp)
out = keras.layers.Dense(1)(keras.layers.Lambda(lambda t: keras.ops.round(t))(seq))
model = keras.Model(inp, out)
model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, epochs=1, verbose=0)
print([v.path for v in model.trainable_variables])
