# values: exact
# note: TimeDistributed(Dense) applies one Dense (weights time_distributed/dense/kernel, made for the shape without the time axis) to every time step; in a Sequential after Embedding(mask_zero=True) it passes the mask on to the compiled loss
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
# expect: call 1 source #2: connected
import numpy as np
import tensorflow as tf

td = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.5), bias_initializer="ones"))
x = tf.constant([[[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], [[0.0, 1.0, -1.0], [2.0, 2.0, 2.0]]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = td(x)
    loss = tf.reduce_sum(tf.square(y) * tf.constant([1.0, -0.5]))
print([v.path for v in td.trainable_variables], y.shape)
print(tape.gradient(loss, td.trainable_variables + [x]))

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Embedding(4, 2, mask_zero=True, embeddings_initializer=tf.keras.initializers.Constant(0.2)),
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1, kernel_initializer="ones")),
])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.array([[1, 2, 0], [3, 0, 0]]), np.array([[[1.0], [2.0], [7.0]], [[0.5], [7.0], [7.0]]]), verbose=0)
