# values: exact
# note: compile(run_eagerly=True): the class's train_step runs eagerly; Keras 2's self.compiled_loss (deprecated in Keras 3: a UserWarning, then compute_loss) and self.compiled_metrics.update_state; a loss through tf.argmax gives every variable None (non_differentiable), and Keras's optimizer then raises
# expect: call 0 source self.trainable_variables[0]: non_differentiable line 22
# expect: call 0 source self.trainable_variables[1]: non_differentiable line 22
import numpy as np
import tensorflow as tf
import keras


class ArgmaxModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(3, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            classes = tf.cast(tf.argmax(y_pred, axis=-1), tf.float32)
            loss = self.compiled_loss(y, classes, regularization_losses=self.losses)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


model = ArgmaxModel()
model.compile(optimizer="adam", loss="mse", metrics=["mae"], run_eagerly=True)
x = np.array([[1.0, 2.0], [0.0, -1.0]], np.float32)
y = np.array([2.0, 0.0], np.float32)
model.fit(x, y, epochs=1, verbose=0)
