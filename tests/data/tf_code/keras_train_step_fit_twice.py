# values: exact
# note: two fits of a model with its own train_step: Keras traces the step once and the second fit runs the traced graph, so no tape.gradient runs again in Python (one call, the first fit's); train_on_batch makes its own traced step
# expect: call 0 source self.trainable_variables[0]: connected
# expect: call 1 source self.trainable_variables[0]: connected
import numpy as np
import tensorflow as tf
import keras


class Step(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones", use_bias=False)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data[0], data[1]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self(x, training=True) - y) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return {"loss": loss}


model = Step()
model.compile(optimizer=keras.optimizers.SGD(0.0))
x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
y = np.array([[1.0], [0.0]], np.float32)
model.fit(x, y, epochs=1, verbose=0)
model.fit(x, y, epochs=1, verbose=0)
model.train_on_batch(x, y)
