# values: exact
# expect: call 0 source x: connected
import tensorflow as tf

x = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])

with tf.GradientTape() as tape:
    column = x[:, 1]
    loss = tf.reduce_sum(column * column) + 3.0 * x[0, 0] + tf.reduce_sum(x[1:, -1])

print(tape.gradient(loss, x))  # 2x in column 1, 3 at [0, 0], 1 at [1:, 2]
