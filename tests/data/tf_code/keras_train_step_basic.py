# values: exact
# note: the Keras guide "Customizing what happens in fit()": fit calls the class's own train_step (traced by tf.function) on the first batch; its tape.gradient is the gradient call, at its own line; the metric tracker's result is an opaque value
# expect: call 0 source self.trainable_variables[0]: connected
# expect: call 0 source self.trainable_variables[1]: connected
import numpy as np
import tensorflow as tf
import keras


class CustomModel(keras.Model):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.dense = keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = keras.losses.mean_squared_error(y, y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        return {"loss": self.loss_tracker.result()}

    @property
    def metrics(self):
        return [self.loss_tracker]


model = CustomModel()
model.compile(optimizer="adam")
x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0]], np.float32)
y = np.array([[1.0], [0.0], [2.0], [-1.0]], np.float32)
model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
