# values: exact
# note: Python floats in from_tensor_slices become float32 elements; map is traced with tf ops
# expect: call 0 source w: connected
# expect: call 1 source w: connected
import tensorflow as tf

w = tf.Variable([1.0, -2.0])
ds = tf.data.Dataset.from_tensor_slices(([[1.0, 2.0], [3.0, 4.0], [0.5, 0.25]], [1.0, 0.0, 2.0]))
ds = ds.map(lambda x, y: (x * 2.0, tf.square(y)), num_parallel_calls=tf.data.AUTOTUNE)
ds = ds.skip(1).prefetch(tf.data.AUTOTUNE)

for x, y in ds:
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.sin(x * w)) * y
    print(tape.gradient(loss, w))
