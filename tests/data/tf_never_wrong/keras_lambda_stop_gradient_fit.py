# values: structure
# note: the cut is inside the Lambda (line 12), not at fit (line 17)
# expect: call 0 source #0: stop_gradient line 12
# expect: call 0 source #1: stop_gradient line 12
# expect: call 0 source #2: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input((3,)),
    tf.keras.layers.Dense(2),
    tf.keras.layers.Lambda(lambda t: tf.stop_gradient(t)),
    tf.keras.layers.Dense(1),
])
model.compile(optimizer="sgd", loss="mse")
x, y = np.ones((4, 3), dtype="float32"), np.ones((4, 1), dtype="float32")
model.fit(x, y, epochs=1, verbose=0)
