# values: exact
# note: a Keras layer the loss never uses: its variables get None
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: no_path line 29
# expect: call 0 source #5: no_path line 29
import tensorflow as tf


class TwoHeads(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.body = tf.keras.layers.Dense(2, kernel_initializer="ones")
        self.head_a = tf.keras.layers.Dense(1, kernel_initializer="ones")
        self.head_b = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        h = self.body(x)
        return self.head_a(h), self.head_b(h)


model = TwoHeads()
x = tf.constant([[1.0, -2.0, 0.5]])

with tf.GradientTape() as tape:
    out_a, out_b = model(x)
    loss = tf.reduce_mean(tf.square(out_a - 1.0))

grads = tape.gradient(loss, model.trainable_variables)
print([g is None for g in grads])
