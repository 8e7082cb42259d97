# values: structure
# note: the Keras guide's style: **kwargs passed to super().__init__, random_normal weights made in build, a Sequential built on its first call, Sequential.add, a sub-model inside a model
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
# expect: call 0 source #5: connected
import tensorflow as tf
from tensorflow import keras


class Linear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units), initializer="random_normal", trainable=True
        )
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return tf.matmul(inputs, self.w) + self.b


class MLP(keras.Model):
    def __init__(self, num_classes=3, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.hidden = Linear(8, name="hidden")
        self.tail = keras.Sequential()
        self.tail.add(keras.layers.Dense(4, activation="relu"))
        self.tail.add(Linear(num_classes))

    def call(self, inputs, training=None):
        return self.tail(tf.nn.relu(self.hidden(inputs)))


model = MLP(name="mlp")
x = tf.random.normal((5, 6))
labels = tf.constant([0, 1, 2, 1, 0])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

with tf.GradientTape() as tape:
    logits = model(x, training=True)
    loss = loss_fn(labels, logits)

grads = tape.gradient(loss, model.trainable_weights)
print([v.path for v in model.trainable_weights])
print([g.shape for g in grads])
