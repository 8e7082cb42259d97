# values: exact
# note: the Keras 3 guide "Customizing what happens in fit() with TensorFlow", as written: a functional model made from a Model subclass (CustomModel(inputs, outputs)), self.compute_loss(y=, y_pred=), Keras 3's optimizer.apply(gradients, variables), the metrics loop over self.metrics (the 'loss' tracker and compile_metrics) and a test_step run by evaluate
# expect: call 0 source trainable_vars[0]: connected
# expect: call 0 source trainable_vars[1]: connected
import numpy as np
import tensorflow as tf
import keras


class CustomModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        trainable_vars = self.trainable_variables
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply(gradients, trainable_vars)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(y=y, y_pred=y_pred)
        for metric in self.metrics:
            if metric.name != "loss":
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


inputs = keras.Input(shape=(4,))
outputs = keras.layers.Dense(1, kernel_initializer="ones")(inputs)
model = CustomModel(inputs, outputs)
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
x = np.array([[1.0, 0.0, 2.0, -1.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 2.0, 0.0, 1.0]], np.float32)
y = np.array([[1.0], [0.0], [2.0]], np.float32)
model.fit(x, y, epochs=2, verbose=0)
results = model.evaluate(x, y, verbose=0)
print(results)
