# values: exact
# note: layers compute in float32 (float64 inputs are cast); Dense(trainable=False) has no trainable_variables but a tape still watches its kernel
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source x64: connected
# expect: call 1 source frozen.kernel: connected
import numpy as np
import tensorflow as tf

layer = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.5),
                              bias_initializer="ones", activation="relu")
no_bias = tf.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")
frozen = tf.keras.layers.Dense(1, kernel_initializer="ones", trainable=False)
x64 = tf.Variable(np.array([[1.0, -4.0, 0.5]]))

with tf.GradientTape(persistent=True) as tape:
    h = layer(x64)
    out = no_bias(h) + frozen(h)
    loss = tf.reduce_sum(out * out)

print(out.dtype, len(frozen.trainable_variables), len(frozen.non_trainable_variables))
print(len(layer.get_weights()), layer.kernel.shape, no_bias.bias)
print(tape.gradient(loss, [layer.kernel, layer.bias, x64]))
print(tape.gradient(loss, frozen.kernel))
