# values: exact
# note: tf.Module lists its own variables (attributes in sorted name order, lists included) before its sub-modules'; a trainable=False variable is left out; a Keras 3 layer it holds is not walked
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
import tensorflow as tf


class Affine(tf.Module):
    def __init__(self, n_in, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones((n_in, 1)), name="w")
        self.b = tf.Variable([0.5], name="b")
        self.frozen = tf.Variable([2.0], trainable=False, name="frozen")

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b * self.frozen


class Stack(tf.Module):
    def __init__(self):
        super().__init__()
        self.first = Affine(2)
        self.extra = [Affine(1)]
        self.scale = tf.Variable(3.0, name="scale")
        self.head = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def __call__(self, x):
        h = self.first(x)
        for module in self.extra:
            h = module(h)
        return self.head(h * self.scale)


stack = Stack()
x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(stack(x))

print([v.name for v in stack.trainable_variables])
print(tape.gradient(loss, stack.trainable_variables))
