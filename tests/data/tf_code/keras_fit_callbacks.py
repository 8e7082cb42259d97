# values: exact
# note: every Keras callback is read and ignored: they act between steps, so the first step's gradient does not depend on them
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf
from tensorflow import keras


class Printer(keras.callbacks.Callback):
    def __init__(self, every):
        super().__init__()
        self.every = every

    def on_epoch_end(self, epoch, logs=None):
        if epoch % self.every == 0:
            print(epoch, logs["loss"])


callbacks = [
    keras.callbacks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True),
    keras.callbacks.ModelCheckpoint("/tmp/gradcli_fit_callbacks.keras", save_best_only=True, monitor="loss"),
    keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5),
    keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1),
    keras.callbacks.CSVLogger("/tmp/gradcli_fit_callbacks.csv"),
    keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: None),
    keras.callbacks.TerminateOnNaN(),
    keras.callbacks.History(),
    keras.callbacks.ProgbarLogger(),
    Printer(2),
]
model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1, kernel_initializer="ones")])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse", metrics=[keras.metrics.RootMeanSquaredError(), "mae"])
x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [2.0, 1.0]])
y = np.array([[1.0], [0.0], [2.0], [-1.0]])
model.fit(x, y, epochs=3, callbacks=callbacks, verbose=2)
