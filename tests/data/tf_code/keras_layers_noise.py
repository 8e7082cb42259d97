# values: structure
# note: the random regularisation layers in training (training=True): GaussianDropout, SpatialDropout1D/2D (whole channels dropped), AlphaDropout; their masks and noise come from Keras's seed generators (gradcli's own numbers), so only None-ness, shapes and dtypes are compared
# expect: call 0 source x: connected
# expect: call 0 source dense.kernel: connected
import tensorflow as tf

x = tf.reshape(tf.range(24, dtype=tf.float32) / 8.0 - 1.0, (2, 3, 4))
dense = tf.keras.layers.Dense(4, kernel_initializer="ones")
layers = [tf.keras.layers.GaussianDropout(0.25), tf.keras.layers.SpatialDropout1D(0.5),
          tf.keras.layers.AlphaDropout(0.2), tf.keras.layers.GaussianNoise(0.5)]
spatial = tf.keras.layers.SpatialDropout2D(0.5, data_format="channels_first")

with tf.GradientTape() as tape:
    tape.watch(x)
    h = dense(x)
    for layer in layers:
        h = layer(h, training=True)
    img = spatial(tf.reshape(h, (2, 3, 2, 2)), training=True)
    loss = tf.reduce_sum(h * h) + tf.reduce_sum(img)

print([v.path for layer in layers + [spatial] for v in layer.variables])
print(tape.gradient(loss, [x, dense.kernel]))
