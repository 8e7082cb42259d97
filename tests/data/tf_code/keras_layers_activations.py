# values: exact
# note: keras.activations.relu and elu with their options, and ReLU with each option (leaky_relu alone, relu6 at max_value 6, where(x > threshold) with a threshold, clip_by_value at max_value), LeakyReLU (default 0.3, alpha= deprecated), ELU alpha 0.5, PReLU with shared_axes, Softmax over one and two axes, tf.keras's legacy ThresholdedReLU; inputs on the kinks (0, threshold 0.5, max_value 6)
# expect: call 0 source x: connected
# expect: call 0 source prelu.alpha: connected
# expect: call 1 source x: connected
# expect: call 2 source x: connected
import tensorflow as tf

x = tf.constant([[[-1.5, -0.5, 0.0], [0.5, 2.0, 7.0]],
                 [[1.0, -2.0, 6.0], [6.5, -0.25, 0.75]]])
layers = [
    tf.keras.layers.ReLU(),
    tf.keras.layers.ReLU(negative_slope=0.125),
    tf.keras.layers.ReLU(max_value=6.0),
    tf.keras.layers.ReLU(max_value=1.5),
    tf.keras.layers.ReLU(threshold=0.5),
    tf.keras.layers.ReLU(max_value=6.0, negative_slope=0.5, threshold=0.5),
    tf.keras.layers.ReLU(max_value=2.0, negative_slope=0.25),
    tf.keras.layers.LeakyReLU(),
    tf.keras.layers.LeakyReLU(alpha=0.0625),
    tf.keras.layers.ELU(),
    tf.keras.layers.ELU(alpha=0.5),
    tf.keras.layers.ThresholdedReLU(theta=0.5),
]
prelu = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25),
                              shared_axes=[1])
soft = tf.keras.layers.Softmax()
soft2 = tf.keras.layers.Softmax(axis=[1, 2])
weights = tf.constant([[[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25]], [[2.0, -3.0, 1.0], [0.5, 1.0, -2.0]]])

with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    total = tf.add_n([layer(x) for layer in layers]) + prelu(x)
    loss = tf.reduce_sum(total * weights)
    smooth = tf.reduce_sum((soft(x) + soft2(x)) * weights)

print(prelu.alpha.path, prelu.alpha.shape)
print(tape.gradient(loss, [x, prelu.alpha]))
print(tape.gradient(smooth, x))

with tf.GradientTape() as tape:
    tape.watch(x)
    options = (tf.keras.activations.relu(x, negative_slope=0.25, max_value=3.0, threshold=0.5)
               + tf.keras.activations.relu(x, 0.125) + tf.keras.activations.elu(x, alpha=0.5)
               + tf.keras.activations.relu(x, max_value=6.0))
    total = tf.reduce_sum(options * weights)
print(tape.gradient(total, x))
