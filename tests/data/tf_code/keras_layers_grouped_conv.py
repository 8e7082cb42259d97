# values: exact
# note: dyadic inputs and weights (float32 sums exact in any order): Conv2D and Conv1D with groups=2 (kernel (*k, in // groups, filters); TensorFlow runs one grouped convolution, gradcli one per group), a dilated Conv2D, DepthwiseConv2D (depth_multiplier 2, same padding, stride 2), DepthwiseConv1D, SeparableConv2D and SeparableConv1D (dilated), weights set after the first call
# expect: call 0 source #0: connected
# expect: call 0 source #6: connected
# expect: call 0 source #12: connected
import tensorflow as tf


def fixed(shape):
    n = 1
    for d in shape:
        n *= d
    return tf.reshape(tf.math.floormod(tf.range(n, dtype=tf.float32), 5.0) - 2.0, shape) / 4.0


img = tf.constant([[[[((5 * n + 3 * i + 2 * j + c) % 7 - 3) / 4.0 for c in range(4)] for j in range(5)]
                    for i in range(5)] for n in range(2)])
seq = tf.constant([[[((3 * n + 2 * t + c) % 5 - 2) / 2.0 for c in range(4)] for t in range(6)]
                   for n in range(2)])

layers = [
    tf.keras.layers.Conv2D(4, 2, groups=2, activation="relu"),
    tf.keras.layers.Conv1D(6, 3, groups=2, padding="same"),
    tf.keras.layers.Conv2D(2, 2, dilation_rate=2, use_bias=False),
    tf.keras.layers.DepthwiseConv2D(3, strides=2, padding="same", depth_multiplier=2),
    tf.keras.layers.DepthwiseConv1D(2, dilation_rate=2),
    tf.keras.layers.SeparableConv2D(3, 2, depth_multiplier=1),
    tf.keras.layers.SeparableConv1D(2, 2, dilation_rate=2, depth_multiplier=2, use_bias=False),
]
inputs = [img, seq, img, img, seq, img, seq]
for layer, x in zip(layers, inputs):
    layer(x)
for layer in layers:
    layer.set_weights([fixed(w.shape) for w in layer.weights])

with tf.GradientTape() as tape:
    tape.watch(img)
    loss = tf.add_n([tf.reduce_sum(tf.square(layer(x))) for layer, x in zip(layers, inputs)])

variables = [v for layer in layers for v in layer.trainable_variables]
print([v.path for v in variables], [v.shape for v in variables])
print(tape.gradient(loss, variables + [img]))
