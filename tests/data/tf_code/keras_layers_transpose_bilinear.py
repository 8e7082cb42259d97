# values: exact
# note: dyadic inputs and weights: Conv2DTranspose with output_padding (valid and same padding), Conv1DTranspose (TensorFlow's conv1d_transpose: a conv2d_transpose on a unit row axis) with and without output_padding, UpSampling2D(interpolation="bilinear") (tf.image.resize's half-pixel bilinear; channels_first too)
# expect: call 0 source #0: connected
# expect: call 0 source #2: connected
# expect: call 0 source #4: connected
# expect: call 0 source #7: connected
import tensorflow as tf

img = tf.constant([[[[((5 * n + 3 * i + 2 * j + c) % 7 - 3) / 4.0 for c in range(2)] for j in range(3)]
                    for i in range(3)] for n in range(2)])
seq = tf.constant([[[((3 * n + 2 * t + c) % 5 - 2) / 2.0 for c in range(2)] for t in range(4)]
                   for n in range(2)])
t1 = tf.keras.layers.Conv2DTranspose(2, 3, strides=2, output_padding=1,
                                     kernel_initializer=tf.keras.initializers.Constant(0.25))
t2 = tf.keras.layers.Conv2DTranspose(1, (2, 3), strides=(3, 2), padding="same", output_padding=(1, 0),
                                     kernel_initializer="ones", bias_initializer="ones")
t3 = tf.keras.layers.Conv1DTranspose(3, 3, strides=2, padding="same",
                                     kernel_initializer=tf.keras.initializers.Constant(0.5))
t4 = tf.keras.layers.Conv1DTranspose(2, 2, strides=3, output_padding=2, use_bias=False,
                                     kernel_initializer="ones")
up = tf.keras.layers.UpSampling2D(size=(2, 4), interpolation="bilinear")
up_first = tf.keras.layers.UpSampling2D(interpolation="bilinear", data_format="channels_first")

with tf.GradientTape() as tape:
    tape.watch(img)
    a, b, c, d = t1(img), t2(img), t3(seq), t4(seq)
    u, v = up(img), up_first(img)
    loss = (tf.reduce_sum(a * a) + tf.reduce_sum(b * b) + tf.reduce_sum(c * c) + tf.reduce_sum(d * d)
            + tf.reduce_sum(u * u * tf.range(2, dtype=tf.float32)) + tf.reduce_sum(v * v))

print(a.shape, b.shape, c.shape, d.shape, u.shape, v.shape)
print(tape.gradient(loss, [t1.kernel, t1.bias, t2.kernel, t2.bias, t3.kernel, t3.bias, t4.kernel, img]))
