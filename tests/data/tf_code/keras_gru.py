# values: exact
# note: Keras 3's GRU (reset_after=True by default: a bias of shape (2, 3 * units), gates z, r, h, recurrent_activation sigmoid) and a GRU with reset_after=False (bias (3 * units,)), each with weights set by set_weights; return_state gives the last state as well
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 1 source #0: connected
# expect: call 1 source #2: connected
import numpy as np
import tensorflow as tf

x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
kernel = np.array([[0.5, -0.25, 0.75, 0.1, -0.3, 0.2], [0.75, 0.5, -0.5, 0.4, 0.6, -0.1]])
recurrent = np.array([[0.25, -0.5, 0.5, 0.125, 0.3, -0.2], [0.5, 0.125, -0.25, 0.2, 0.1, 0.4]])

gru = tf.keras.layers.GRU(2, return_state=True)
gru.build((None, 3, 2))
gru.set_weights([kernel, recurrent, np.array([[0.1, -0.2, 0.3, 0.0, 0.2, -0.1],
                                              [0.05, 0.1, -0.15, 0.2, -0.25, 0.3]])])
print([v.path for v in gru.variables])
with tf.GradientTape() as tape:
    tape.watch(x)
    out, state = gru(x)
    loss = tf.reduce_sum(out * tf.constant([1.0, -2.0])) + tf.reduce_sum(state**2)
print(tape.gradient(loss, gru.trainable_variables + [x]))

old = tf.keras.layers.GRU(2, reset_after=False, return_sequences=True)
old.build((None, 3, 2))
old.set_weights([kernel, recurrent, np.array([0.1, -0.2, 0.3, 0.0, 0.2, -0.1])])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(old(x) * tf.constant([[1.0, 0.5], [-1.0, 2.0], [0.25, 1.0]]))
print(tape.gradient(loss, old.trainable_variables))
