# values: exact
# note: BatchNormalization on a rank-3 input over axis=1 (statistics over the other two axes), without center, with its own momentum and epsilon; a frozen layer (trainable = False) uses its moving statistics even with training=True
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source frozen.gamma: connected
# expect: call 1 source frozen.beta: connected
import numpy as np
import tensorflow as tf

bn = tf.keras.layers.BatchNormalization(axis=1, center=False, momentum=0.5, epsilon=0.01)
x = tf.constant(
    [[[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], [[-2.0, 1.5], [2.0, 2.0], [0.25, -0.5]]]
)
with tf.GradientTape() as tape:
    tape.watch(x)
    out = bn(x, training=True)
    loss = tf.reduce_sum(out * x)
print(tape.gradient(loss, [bn.gamma, x]))

frozen = tf.keras.layers.BatchNormalization(gamma_initializer="ones", name="frozen_bn")
frozen.build((None, 2))
frozen.set_weights([np.array([2.0, 0.5]), np.array([0.1, -0.1]), np.array([1.0, -1.0]),
                    np.array([4.0, 0.25])])
frozen.trainable = False
z = tf.constant([[1.0, 2.0], [3.0, -1.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(frozen(z, training=True) ** 2)
print(tape.gradient(loss, [frozen.gamma, frozen.beta]))
print(frozen.moving_mean.numpy(), len(frozen.trainable_variables))
