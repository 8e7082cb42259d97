# values: exact
# note: CenterCrop (channels_last and channels_first); a Sequential starting with an InputLayer: Rescaling, Normalization with given statistics, ZeroPadding2D, UpSampling2D (nearest), Cropping2D, Permute, Flatten, Dense with fixed weights; then RepeatVector, UpSampling1D, ZeroPadding1D, Cropping1D, Identity, and channels_first UpSampling2D, ZeroPadding2D and Cropping2D on a watched tensor
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source v: connected
# expect: call 1 source img: connected
# expect: call 2 source images: connected
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.layers.InputLayer(shape=(2, 3, 2)),
    tf.keras.layers.Rescaling(0.5, offset=-0.25),
    tf.keras.layers.Normalization(mean=[0.5, -0.25], variance=[4.0, 0.25]),
    tf.keras.layers.ZeroPadding2D(padding=((1, 0), (0, 2))),
    tf.keras.layers.UpSampling2D(size=(2, 1)),
    tf.keras.layers.Cropping2D(cropping=((1, 2), (1, 1))),
    tf.keras.layers.Permute((3, 1, 2)),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.5),
                          bias_initializer="ones"),
])
images = tf.constant([[[[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]], [[-2.0, 1.0], [2.5, 0.0], [1.0, 1.5]]],
                      [[[0.0, -1.0], [2.0, 3.0], [-0.5, 1.0]], [[1.0, 1.0], [-3.0, 2.0], [4.0, 0.5]]]])

with tf.GradientTape() as tape:
    out = model(images)
    loss = tf.reduce_sum(out * out)
print([layer.name for layer in model.layers], out.shape)
print(tape.gradient(loss, model.trainable_variables))

v = tf.Variable([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
img = tf.reshape(tf.range(12, dtype=tf.float32) / 4.0 - 1.0, (1, 2, 2, 3))
weights = tf.reshape(tf.range(36, dtype=tf.float32) / 8.0 - 2.0, (2, 6, 3))
with tf.GradientTape() as tape:
    tape.watch(img)
    seq = tf.keras.layers.RepeatVector(4)(v)
    seq = tf.keras.layers.UpSampling1D(size=3)(seq)
    seq = tf.keras.layers.ZeroPadding1D(padding=(2, 1))(seq)
    seq = tf.keras.layers.Cropping1D(cropping=(4, 5))(seq)
    seq = tf.keras.layers.Identity()(seq)
    up = tf.keras.layers.UpSampling2D(size=2, data_format="channels_first")(img)
    padded = tf.keras.layers.ZeroPadding2D(padding=1, data_format="channels_first")(up)
    cropped = tf.keras.layers.Cropping2D(cropping=((0, 1), (2, 1)), data_format="channels_first")(padded)
    loss = tf.reduce_sum(seq * weights) + tf.reduce_sum(cropped * cropped * tf.range(5, dtype=tf.float32))
print(seq.shape, up.shape, padded.shape, cropped.shape)
print(tape.gradient(loss, [v, img]))

with tf.GradientTape() as tape:
    tape.watch(images)
    crop = tf.keras.layers.CenterCrop(1, 2)(images) + tf.keras.layers.CenterCrop(2, 1, data_format="channels_first")(images)
    loss = tf.reduce_sum(crop * crop)
print(crop.shape, tape.gradient(loss, images))
