# values: exact
# note: the class overrides only compute_loss (Keras's documented hook): Keras's own train_step calls it with (x, y, y_pred, sample_weight) and training= when its signature has it; super().compute_loss is the compiled 'mse'; a weight used only through tf.stop_gradient gets None
# expect: call 0 source model.trainable_variables[0]: stop_gradient line 23
# expect: call 0 source model.trainable_variables[1]: connected
# expect: call 0 source model.trainable_variables[2]: connected
import numpy as np
import tensorflow as tf
import keras


class Tempered(keras.Model):
    def __init__(self):
        super().__init__()
        self.temperature = self.add_weight(name="temperature", shape=(), initializer="ones")
        self.dense = keras.layers.Dense(2, kernel_initializer="ones")
        self.loss_tracker = keras.metrics.Mean(name="loss")

    def call(self, x):
        return self.dense(x)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        loss = super().compute_loss(x, y, y_pred, sample_weight, training)
        penalty = 0.01 * tf.stop_gradient(self.temperature) ** 2
        self.loss_tracker.update_state(loss)
        return loss + penalty


model = Tempered()
model.compile(optimizer="sgd", loss="mse")
x = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
y = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
model.fit(x, y, epochs=1, verbose=0)
