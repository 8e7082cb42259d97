# values: exact
# note: inside @tf.function tf.while_loop becomes one While op and TensorArray writes are functional; TensorFlow differentiates the loop with its own stacks, the same numbers as the loop unrolled
# expect: call 0 source w: connected
import tensorflow as tf

w = tf.Variable(0.75, dtype=tf.float64)


@tf.function
def unrolled_sum(x):
    ta = tf.TensorArray(tf.float64, size=4)
    i = tf.constant(0)
    while i < 4:
        x = tf.sin(x * w)
        ta = ta.write(i, x)
        i += 1
    return tf.reduce_sum(ta.stack())


with tf.GradientTape() as tape:
    loss = unrolled_sum(tf.constant([0.5, 2.0], dtype=tf.float64))

print(tape.gradient(loss, w))
