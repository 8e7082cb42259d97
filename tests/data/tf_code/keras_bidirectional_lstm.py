# values: exact
# note: Bidirectional(LSTM) clones the layer as forward_lstm and backward_lstm (go_backwards=True), fresh weights named bidirectional/forward_lstm/lstm_cell/kernel ...; the backward sequence is reversed in time and concatenated to the forward one
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: connected
# expect: call 0 source #5: connected
# expect: call 0 source #6: connected
import numpy as np
import tensorflow as tf

layer = tf.keras.layers.Bidirectional(
    tf.keras.layers.LSTM(2, return_sequences=True, kernel_initializer=tf.keras.initializers.Constant(0.3),
                         recurrent_initializer=tf.keras.initializers.Constant(-0.2), bias_initializer="zeros")
)
x = tf.constant([[[0.1, 0.2], [0.3, -0.4], [0.5, 0.6]], [[-0.7, 0.8], [0.9, 1.0], [1.1, -1.2]]])
with tf.GradientTape() as tape:
    tape.watch(x)
    out = layer(x)
    loss = tf.reduce_sum(out * tf.constant([1.0, -1.0, 0.5, 2.0]))
print([v.path for v in layer.trainable_variables], out.shape)
print(tape.gradient(loss, layer.trainable_variables + [x]))
