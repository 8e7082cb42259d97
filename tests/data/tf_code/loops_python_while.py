# values: exact
# note: Python while loops run as Python runs them; in eager mode a condition on a tensor's value is just a value, and the gradient treats the number of iterations as fixed; break and continue as Python's
# expect: call 0 source w: connected
# expect: call 0 source b: no_path
import tensorflow as tf

w = tf.Variable(1.5, dtype=tf.float64)
b = tf.Variable(0.5, dtype=tf.float64)

with tf.GradientTape() as tape:
    y = tf.constant(1.0, dtype=tf.float64)
    while y < 10.0:  # 1.5 ** 6 > 10: six iterations
        y = y * w
    steps = 0
    z = y
    while True:
        steps += 1
        if steps == 2:
            continue
        if steps > 4:
            break
        z = z + w * steps
    for j in range(10):
        if j == 3:
            break
        z = z * w
    else:
        z = z + b

print(tape.gradient(z, [w, b]))
