# values: exact
# note: tf.TensorArray written in a tf.while_loop and stacked; read, unstack, gather, concat and size outside the loop (eager: write returns the same array)
# expect: call 0 source w: connected
# expect: call 1 source x: connected
import tensorflow as tf

w = tf.Variable([1.0, 2.0], dtype=tf.float64)
x = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=tf.float64)

with tf.GradientTape() as tape:
    ta = tf.TensorArray(tf.float64, size=3, element_shape=[2])

    def body(i, h, ta):
        h = tf.tanh(h * w + 0.5)
        return i + 1, h, ta.write(i, h)

    _, h, ta = tf.while_loop(lambda i, h, ta: i < 3, body, (0, tf.ones([2], tf.float64), ta))
    states = ta.stack()
    loss = tf.reduce_sum(states * states) + tf.reduce_sum(h)

print(states.shape, tape.gradient(loss, w))

with tf.GradientTape() as tape:
    rows = tf.TensorArray(tf.float64, size=0, dynamic_size=True, clear_after_read=False)
    rows = rows.unstack(x)
    first = rows.read(0)
    picked = rows.gather([2, 0])
    flat = rows.concat()
    more = rows.write(rows.size(), first * 2.0)
    total = (
        tf.reduce_sum(first * picked)
        + tf.reduce_sum(flat**2)
        + tf.reduce_sum(more.stack())
        + tf.cast(more.size(), tf.float64)
    )

print(tape.gradient(total, x))
