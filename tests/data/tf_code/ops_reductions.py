# values: exact
# note: reduce_max splits the gradient evenly between tied maxima
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 2 source x: connected
# expect: call 3 source x: connected
import tensorflow as tf

x = tf.Variable([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]], dtype=tf.float64)

with tf.GradientTape(persistent=True) as tape:
    total = tf.reduce_sum(x * x)
    mean = tf.reduce_mean(x, axis=0)
    peak = tf.reduce_max(x)
    row_max = tf.reduce_max(x, axis=1)

print(tape.gradient(total, x))
print(tape.gradient(mean, x))
print(tape.gradient(peak, x))  # 0.5 at each tied 3.0
print(tape.gradient(row_max, x))
