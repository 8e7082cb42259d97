import tensorflow as tf

data = tf.range(10, dtype=tf.float32)
ds = tf.data.Dataset.from_tensor_slices(data)
u = tf.Variable(1.0, dtype=tf.float32)

with tf.GradientTape(persistent=True) as g:
    loss1 = ds.reduce(tf.constant(0.0), lambda x, y: x + (y - u) ** 2)
    loss2 = tf.reduce_sum([(y - u) ** 2 for y in ds.as_numpy_iterator()])
print(g.gradient(loss1, u))
print(g.gradient(loss2, u))
