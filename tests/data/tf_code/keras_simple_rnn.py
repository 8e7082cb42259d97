# values: exact
# note: Keras 3's SimpleRNN (tanh) over three time steps with weights set by set_weights (paths simple_rnn/simple_rnn_cell/kernel, recurrent_kernel, bias); the loss uses only the last output, which still depends on every time step of the input
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 1 source #0: connected
import numpy as np
import tensorflow as tf

rnn = tf.keras.layers.SimpleRNN(2)
x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
rnn.build((None, 3, 2))
rnn.set_weights([np.array([[0.5, -0.25], [0.75, 0.5]]), np.array([[0.25, -0.5], [0.5, 0.125]]),
                 np.array([0.1, -0.2])])
print([v.path for v in rnn.trainable_variables])

with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    last = rnn(x)
    loss = tf.reduce_sum(last * tf.constant([1.0, -2.0]))
print(tape.gradient(loss, rnn.trainable_variables + [x]))

seq = tf.keras.layers.SimpleRNN(2, return_sequences=True, go_backwards=True,
                                kernel_initializer="ones", recurrent_initializer="zeros",
                                bias_initializer=tf.keras.initializers.Constant(0.5))
with tf.GradientTape() as tape:
    tape.watch(x)
    out = seq(x)
    loss = tf.reduce_sum(out[:, 0, :]) + 2.0 * tf.reduce_sum(out[:, 2, :])
print(tape.gradient(loss, [x]))
