# values: exact
# note: a custom Layer built on its first call (add_weight in build, a non-trainable weight that tapes do not watch), a property, methods calling methods, and a Model holding a list and a dict of layers
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 1 source model.blocks[0].offset: not_watched line 18
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def __init__(self, units, name=None):
        super().__init__(name=name)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1], self.units), initializer="ones")
        self.offset = self.add_weight(
            name="offset",
            shape=(self.units,),
            initializer=tf.keras.initializers.Constant(0.5),
            trainable=False,
        )

    @property
    def width(self):
        return self.units

    def project(self, x):
        return tf.matmul(x, self.w)

    def call(self, inputs, training=None):
        y = self.project(inputs) + self.offset
        if training:
            y = y * 2.0
        return y


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [Scale(3), Scale(2)]
        self.heads = {"main": tf.keras.layers.Dense(1, kernel_initializer="ones")}

    def call(self, x, training=False):
        for block in self.blocks:
            x = tf.nn.relu(block(x, training=training))
        return self.heads["main"](x)


model = Net()
x = tf.constant([[1.0, -2.0], [0.5, 1.0]])
with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_mean(model(x, training=True))

print(model.blocks[1].width, len(model.trainable_variables), len(model.variables))
print(tape.gradient(loss, model.trainable_variables))
print(tape.gradient(loss, model.blocks[0].offset))
