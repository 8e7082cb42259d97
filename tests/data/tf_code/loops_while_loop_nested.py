# values: exact
# note: nested loop variables [i, (a, b)] with shape_invariants; the result keeps the nesting
# expect: call 0 source a0: connected
# expect: call 0 source b0: connected
import tensorflow as tf

a0 = tf.Variable([1.0, 2.0])
b0 = tf.Variable(0.5)

with tf.GradientTape() as tape:
    out = tf.while_loop(
        cond=lambda i, ab: i < 3,
        body=lambda i, ab: [i + 1, (ab[0] * ab[1], ab[1] + tf.reduce_sum(ab[0]))],
        loop_vars=[0, (tf.identity(a0), tf.identity(b0))],
        shape_invariants=[tf.TensorShape([]), (tf.TensorShape([2]), tf.TensorShape([]))],
    )
    loss = tf.reduce_sum(out[1][0]) * out[1][1]

print(tape.gradient(loss, [a0, b0]))
