# values: exact
# note: Keras 3's LSTM (gates i, f, c, o; unit_forget_bias) with weights set by set_weights; return_sequences and return_state give the outputs, h and c; a loss on c alone reaches every weight; go_backwards runs the steps last to first
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 1 source #0: connected
# expect: call 2 source #2: connected
import numpy as np
import tensorflow as tf

x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
kernel = np.array([[0.5, -0.25, 0.75, 0.1, -0.3, 0.2, 0.35, -0.45],
                   [0.75, 0.5, -0.5, 0.4, 0.6, -0.1, -0.2, 0.15]])
recurrent = np.array([[0.25, -0.5, 0.5, 0.125, 0.3, -0.2, 0.1, 0.05],
                      [0.5, 0.125, -0.25, 0.2, 0.1, 0.4, -0.3, 0.2]])
bias = np.array([0.1, -0.2, 1.0, 1.0, 0.2, -0.1, 0.05, 0.3])

lstm = tf.keras.layers.LSTM(2, return_sequences=True, return_state=True)
lstm.build((None, 3, 2))
print(lstm.get_weights()[2])
lstm.set_weights([kernel, recurrent, bias])
print([v.path for v in lstm.trainable_variables])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    seq, h, c = lstm(x)
    loss = tf.reduce_sum(seq * tf.constant([1.0, -2.0])) + tf.reduce_sum(h * c)
    carry = tf.reduce_sum(c)
print(tape.gradient(loss, lstm.trainable_variables + [x]))
print(tape.gradient(carry, lstm.trainable_variables))

back = tf.keras.layers.LSTM(2, go_backwards=True, unit_forget_bias=False,
                            bias_initializer="ones")
back.build((None, 3, 2))
back.set_weights([kernel, recurrent, back.get_weights()[2]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(back(x) ** 2)
print(tape.gradient(loss, back.trainable_variables))
