import numpy as np
import keras
x = np.linspace(-1, 1, 48, dtype=np.float32).reshape(4, 3, 4)
y = np.ones((4, 1), dtype=np.float32)
inp = keras.Input((3, 4))
seq = keras.layers.SimpleRNN(5, activation="relu", bias_initializer=keras.initializers.Constant(-100.0))(inp)
model = keras.Model(inp, keras.layers.Dense(1)(seq))
model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
before = [v.numpy().copy() for v in model.trainable_variables[:3]]
model.fit(x, y, epochs=1, verbose=0)
print("unchanged", [bool(np.array_equal(b, v.numpy())) for b, v in zip(before, model.trainable_variables)])
