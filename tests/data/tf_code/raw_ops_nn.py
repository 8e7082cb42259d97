# values: exact
# note: (distinct multiples of 1/8: no ties in the max pooling, exact sums in the convolution) tf.raw_ops' convolution and pooling take TensorFlow's four-element strides and kernel sizes; TopKV2 returns TopKV2(values, indices); CumulativeLogsumexp as tf.math.cumulative_logsumexp
# expect: call 0 source image: connected
# expect: call 0 source kernel: connected
import tensorflow as tf

image = tf.Variable(tf.reshape(tf.math.floormod(tf.range(32, dtype=tf.float64) * 7.0, 32.0) / 8.0, [1, 4, 4, 2]))
kernel = tf.Variable(tf.reshape(tf.range(16, dtype=tf.float64) / 8.0 - 1.0, [2, 2, 2, 2]))

with tf.GradientTape() as tape:
    c = tf.raw_ops.Conv2D(input=image, filter=kernel, strides=[1, 1, 1, 1], padding="SAME")
    m = tf.raw_ops.MaxPool(input=image, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    a = tf.raw_ops.AvgPool(value=image, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1], padding="VALID")
    top = tf.raw_ops.TopKV2(input=tf.reshape(m, [-1]), k=3)
    lse = tf.raw_ops.CumulativeLogsumexp(x=tf.reshape(a, [-1]), axis=0)
    loss = (
        tf.reduce_sum(c * [1.0, -2.0])
        + tf.reduce_sum(top.values)
        + tf.reduce_sum(lse)
        + tf.cast(top.indices[0], tf.float64)
    )

print(tape.gradient(loss, [image, kernel]))
