# values: exact
# note: compile(loss=...) with Keras 3's loss names ('huber', 'kld', 'log_cosh', 'squared_hinge'), a loss object with options, and a keras.metrics function
# expect: call 0 source #0: connected
# expect: call 1 source #0: connected
# expect: call 2 source #0: connected
# expect: call 3 source #0: connected
# expect: call 4 source #0: connected
# expect: call 5 source #0: connected
import keras
import numpy as np

x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0]])
y = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
losses = ["huber", "kld", "log_cosh", "squared_hinge",
          keras.losses.BinaryFocalCrossentropy(gamma=1.0, from_logits=True),
          keras.metrics.mean_absolute_error]
for loss in losses:
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(2, activation="softmax")])
    model.set_weights([np.array([[0.5, -0.25], [0.75, 0.5]]), np.array([0.1, -0.1])])
    model.compile(optimizer="sgd", loss=loss, metrics=["accuracy"], run_eagerly=True)
    model.fit(x, y, epochs=1, verbose=0)
