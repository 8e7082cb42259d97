# values: exact
# note: iter/next, Dataset.range, zip, enumerate, filter, unbatch, take and as_numpy_iterator
# expect: call 0 source w: connected
# expect: call 1 source w: connected
# expect: call 2 source w: connected
import tensorflow as tf

w = tf.Variable(1.5, dtype=tf.float64)
values = tf.constant([[0.5, 1.0], [2.0, -1.0], [3.0, 0.25]], dtype=tf.float64)
pairs = tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.from_tensor_slices(values)))
it = iter(pairs)
k, v = next(it)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(v * w) * tf.cast(k + 1, tf.float64)
print(tape.gradient(loss, w))

evens = tf.data.Dataset.range(10).filter(lambda n: n % 2 == 0).map(lambda n: tf.cast(n, tf.float64))
print(list(evens.as_numpy_iterator()), len(pairs), pairs.cardinality())
for i, n in evens.enumerate(start=1).take(2):
    with tf.GradientTape() as tape:
        loss = w**2 * n + tf.cast(i, tf.float64)
    print(tape.gradient(loss, w))

rows = tf.data.Dataset.from_tensor_slices(values).batch(2).unbatch()
print(sum(1 for _ in rows), [r.shape for r in rows])
