# values: exact
# note: Keras 3's LayerNormalization (epsilon 1e-3): the default last axis, then axis=[1, 2] of a rank-3 input with gamma and beta of shape (3, 2), and a layer without center
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 1 source #0: connected
# expect: call 1 source #2: connected
# expect: call 1 source #3: connected
import numpy as np
import tensorflow as tf

ln = tf.keras.layers.LayerNormalization()
x = tf.constant([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    loss = tf.reduce_sum(ln(x) * tf.constant([1.0, -2.0, 3.0]) * x)
print(tape.gradient(loss, [ln.gamma, ln.beta, x]))

ln2 = tf.keras.layers.LayerNormalization(axis=[1, 2], epsilon=0.1)
ln3 = tf.keras.layers.LayerNormalization(center=False, scale=True)
s = tf.constant(
    [[[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], [[-2.0, 1.5], [2.0, 2.0], [0.25, -0.5]]]
)
ln2.build((None, 3, 2))
ln2.set_weights([np.array([[0.5, 0.75], [1.0, 1.25], [1.5, 1.75]]), np.ones((3, 2)) / 8])
with tf.GradientTape() as tape:
    tape.watch(s)
    out = ln3(ln2(s))
    loss = tf.reduce_sum(out * out * s)
print(tape.gradient(loss, [ln2.gamma, ln2.beta, s, ln3.gamma]))
