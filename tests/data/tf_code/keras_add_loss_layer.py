# values: exact
# note: self.add_loss in a layer's and a model's call: model.losses holds the model's own loss, then its layers' (reset at every outermost call), which a tape user adds to the loss; the second call's losses replace the first's
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf


class ActivityPenalty(tf.keras.layers.Layer):
    def __init__(self, rate):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * tf.reduce_sum(tf.square(inputs)))
        return inputs


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.5))
        self.penalty = ActivityPenalty(0.1)

    def call(self, x):
        h = self.penalty(self.dense(x))
        self.add_loss(tf.reduce_mean(tf.abs(h)))
        return tf.reduce_sum(h, axis=1)


model = Net()
x = tf.constant([[1.0, -2.0], [0.5, 3.0]])
print(model.losses)
with tf.GradientTape() as tape:
    y = model(x)
    loss = tf.reduce_mean(y) + sum(model.losses)
print(len(model.losses), model.losses)
print(tape.gradient(loss, model.trainable_variables))

with tf.GradientTape() as tape:
    y = model(x * 2.0)
    loss = tf.add_n(model.losses)
print(len(model.losses))
print(tape.gradient(loss, model.trainable_variables))
