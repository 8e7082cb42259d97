# values: structure
# note: model.fit on a shuffled, batched dataset: the first batch's gradient (TensorFlow's order is random)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

x = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0], [5.0, 6.0, 7.0], [0.0, 1.0, 0.0]])
y = np.array([[1.0], [2.0], [3.0], [0.5]])
ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(100).batch(2)

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(ds, epochs=2, verbose=0)
