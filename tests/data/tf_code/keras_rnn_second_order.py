# values: exact
# note: second derivatives through Keras layers: nested tapes over a GRU followed by LayerNormalization (fixed weights), the inner gradient with respect to the input, the outer one of its squared norm with respect to the GRU's kernel
# expect: call 0 source x: connected
# expect: call 1 source gru.cell.kernel: connected
import numpy as np
import tensorflow as tf

x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
gru = tf.keras.layers.GRU(3, return_sequences=True)
gru.build((None, 3, 2))
gru.set_weights([
    np.array([[0.5, -0.25, 0.75, 0.1, -0.3, 0.2, 0.35, -0.45, 0.05],
              [0.75, 0.5, -0.5, 0.4, 0.6, -0.1, -0.2, 0.15, 0.3]]),
    np.array([[0.25, -0.5, 0.5, 0.125, 0.3, -0.2, 0.1, 0.05, -0.15],
              [0.5, 0.125, -0.25, 0.2, 0.1, 0.4, -0.3, 0.2, 0.35],
              [-0.1, 0.2, 0.3, -0.4, 0.5, 0.05, 0.15, -0.25, 0.45]]),
    np.array([[0.1, -0.2, 0.3, 0.0, 0.2, -0.1, 0.05, 0.1, -0.15],
              [0.2, -0.25, 0.3, 0.05, 0.1, -0.15, 0.25, 0.0, 0.1]]),
])
norm = tf.keras.layers.LayerNormalization()

with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        inner.watch(x)
        loss = tf.reduce_sum(norm(gru(x)) * tf.constant([1.0, -2.0, 0.5]))
    dx = inner.gradient(loss, x)
    penalty = tf.reduce_sum(dx**2)
print(dx)
print(outer.gradient(penalty, gru.cell.kernel))
