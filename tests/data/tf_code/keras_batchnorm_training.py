# values: exact
# note: Keras 3's BatchNormalization: training=True normalises with the batch's moments and assigns the moving averages (momentum 0.99), which the inference call then reads; moving_mean and moving_variance are non-trainable variables the tape does not watch (the training loss does not use them at all: no path)
# expect: call 0 source bn.gamma: connected
# expect: call 0 source bn.beta: connected
# expect: call 0 source x: connected
# expect: call 1 source bn.non_trainable_variables[0]: no_path
# expect: call 1 source bn.non_trainable_variables[1]: no_path
# expect: call 2 source bn.trainable_variables[0]: connected
# expect: call 2 source x: connected
# expect: call 2 source bn.moving_mean: not_watched
import tensorflow as tf

bn = tf.keras.layers.BatchNormalization()
x = tf.constant([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0], [2.5, 0.0, -2.0]])
weights = tf.constant([1.0, 2.0, 3.0])

with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = bn(x, training=True)
    loss = tf.reduce_sum(y**2 * weights) + tf.reduce_sum(y * x)

print(tape.gradient(loss, [bn.gamma, bn.beta, x]))
print(tape.gradient(loss, bn.non_trainable_variables))
print(bn.moving_mean.numpy(), bn.moving_variance.numpy())

with tf.GradientTape() as tape:
    tape.watch(x)
    inferred = tf.reduce_sum(bn(x) * weights)

print(tape.gradient(inferred, [bn.trainable_variables[0], x, bn.moving_mean]))
