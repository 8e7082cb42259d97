# values: exact
# note: data_format="channels_first": MaxPooling2D/AveragePooling1D (Keras transposes to channels_last and back), GlobalAveragePooling2D and GlobalMaxPooling1D over axes 2.., Flatten (channels moved last first), DepthwiseConv2D, SeparableConv2D and a grouped Conv2D (which Keras runs through XLA) (transposed around TensorFlow's channels_last kernels), UpSampling2D and ZeroPadding2D
# expect: call 0 source x: connected
# expect: call 0 source depthwise.kernel: connected
# expect: call 0 source separable.pointwise_kernel: connected
import tensorflow as tf

x = tf.constant([[[[((7 * n + 5 * c + 3 * i + j) % 9 - 4) / 4.0 for j in range(4)] for i in range(4)]
                  for c in range(3)] for n in range(2)])
depthwise = tf.keras.layers.DepthwiseConv2D(2, data_format="channels_first",
                                            depthwise_initializer=tf.keras.initializers.Constant(0.5),
                                            bias_initializer="ones")
grouped = tf.keras.layers.Conv2D(4, 2, groups=2, data_format="channels_first",
                                 kernel_initializer=tf.keras.initializers.Constant(0.25))
separable = tf.keras.layers.SeparableConv2D(2, 2, padding="same", data_format="channels_first",
                                            depthwise_initializer="ones",
                                            pointwise_initializer=tf.keras.initializers.Constant(0.25))
with tf.GradientTape() as tape:
    tape.watch(x)
    pooled = tf.keras.layers.MaxPooling2D(data_format="channels_first")(x)
    avg = tf.keras.layers.AveragePooling1D(2, strides=1, data_format="channels_first")(x[:, :, 0, :])
    gap = tf.keras.layers.GlobalAveragePooling2D(data_format="channels_first")(x)
    gmp = tf.keras.layers.GlobalMaxPooling1D(data_format="channels_first", keepdims=True)(x[:, :, :, 1])
    flat = tf.keras.layers.Flatten(data_format="channels_first")(pooled)
    up = tf.keras.layers.UpSampling2D(data_format="channels_first")(pooled)
    pad = tf.keras.layers.ZeroPadding2D(padding=(1, 2), data_format="channels_first")(up)
    d = depthwise(x)
    s = separable(x)
    g = grouped(tf.concat([x, x[:, :1]], axis=1))
    w = tf.range(12, dtype=tf.float32) / 8.0
    loss = (tf.reduce_sum(flat * w) + tf.reduce_sum(avg * avg) + tf.reduce_sum(gap * gap)
            + tf.reduce_sum(gmp) + tf.reduce_sum(pad * pad) + tf.reduce_sum(d * d) + tf.reduce_sum(s * s)
            + tf.reduce_sum(g * g))

print(pooled.shape, avg.shape, gap.shape, gmp.shape, flat.shape, pad.shape, d.shape, s.shape)
print(tape.gradient(loss, [x, depthwise.kernel, depthwise.bias, separable.depthwise_kernel,
                           separable.pointwise_kernel, separable.bias, grouped.kernel]))
