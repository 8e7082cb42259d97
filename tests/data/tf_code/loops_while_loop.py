# values: exact
# note: tf.while_loop in eager mode runs its body as Python would; the body reads the variable w on every iteration (four multiplications: y = x0 * w**4 + ...)
# expect: call 0 source w: connected
# expect: call 0 source x0: connected
import tensorflow as tf

w = tf.Variable(1.25, dtype=tf.float64)
x0 = tf.Variable([0.5, -1.0], dtype=tf.float64)

with tf.GradientTape() as tape:
    i, y = tf.while_loop(
        lambda i, y: i < 4,
        lambda i, y: (i + 1, y * w + tf.sin(y)),
        (tf.constant(0), x0),
    )
    loss = tf.reduce_sum(y)

print(i, tape.gradient(loss, [w, x0]))
