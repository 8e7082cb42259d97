# values: exact
# note: a custom train_step with Keras 3's self.compute_loss (the compiled 'mse' plus the kernel regularizer's penalty) and keras.utils.unpack_x_y_sample_weight: fit passes (x, y, sample_weight); train_on_batch always passes (x, y, sample_weight) with None where not given (a fresh model: fit trained the first one's weights)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf
import keras


class WeightedModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(
            2, kernel_initializer="ones", kernel_regularizer=keras.regularizers.L2(0.5)
        )
        self.accuracy = keras.metrics.MeanAbsoluteError(name="mae")

    def call(self, inputs, training=None):
        return self.dense(inputs)

    def train_step(self, data):
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)
        variables = self.trainable_variables
        gradients = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))
        self.accuracy.update_state(y, y_pred)
        return {"loss": loss, "mae": self.accuracy.result()}


model = WeightedModel()
model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
x = np.array([[1.0, -2.0], [0.5, 1.0], [3.0, 0.0]], np.float32)
y = np.array([[0.0, 1.0], [1.0, 1.0], [2.0, -1.0]], np.float32)
sw = np.array([1.0, 2.0, 0.5], np.float32)
model.fit(x, y, sample_weight=sw, batch_size=3, epochs=1, verbose=0)
fresh = WeightedModel()
fresh.compile(optimizer="sgd", loss="mse")
fresh.train_on_batch(x[:2], y[:2])
