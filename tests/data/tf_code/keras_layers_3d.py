# values: exact
# note: dyadic inputs and weights: Conv3D (channels_last, and channels_first, which Keras runs through XLA), MaxPooling3D, AveragePooling3D (channels_first), GlobalAveragePooling3D, GlobalMaxPooling3D, UpSampling3D, ZeroPadding3D and Cropping3D
# expect: call 0 source #0: connected
# expect: call 0 source #2: connected
# expect: call 0 source #4: connected
import tensorflow as tf

vol = tf.constant([[[[[((7 * n + 5 * d + 3 * i + j + c) % 9 - 4) / 4.0 for c in range(2)] for j in range(4)]
                     for i in range(4)] for d in range(3)] for n in range(2)])
conv = tf.keras.layers.Conv3D(2, (2, 2, 2), kernel_initializer=tf.keras.initializers.Constant(0.25),
                              bias_initializer="ones", activation="relu")
conv_first = tf.keras.layers.Conv3D(3, 2, padding="same", data_format="channels_first",
                                    kernel_initializer=tf.keras.initializers.Constant(0.5))
with tf.GradientTape() as tape:
    tape.watch(vol)
    a = conv(vol)
    b = conv_first(vol)
    mp = tf.keras.layers.MaxPooling3D(pool_size=(1, 2, 2))(vol)
    ap = tf.keras.layers.AveragePooling3D(2, strides=1, data_format="channels_first")(vol)
    ga = tf.keras.layers.GlobalAveragePooling3D()(vol)
    gm = tf.keras.layers.GlobalMaxPooling3D(data_format="channels_first", keepdims=True)(vol)
    up = tf.keras.layers.UpSampling3D(size=(1, 2, 1))(mp)
    pad = tf.keras.layers.ZeroPadding3D(padding=(1, 0, 2))(up)
    crop = tf.keras.layers.Cropping3D(cropping=((0, 1), (1, 1), (2, 0)))(pad)
    loss = (tf.reduce_sum(a * a) + tf.reduce_sum(b * b) + tf.reduce_sum(ap * ap) + tf.reduce_sum(ga * ga)
            + tf.reduce_sum(gm) + tf.reduce_sum(crop * crop * tf.range(2, dtype=tf.float32)))

print(a.shape, b.shape, mp.shape, ap.shape, ga.shape, gm.shape, up.shape, pad.shape, crop.shape)
print(tape.gradient(loss, [conv.kernel, conv.bias, conv_first.kernel, conv_first.bias, vol]))
