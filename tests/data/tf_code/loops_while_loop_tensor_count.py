# values: exact
# note: the trip count n = floor(3 w) depends on w, but TensorFlow's gradient treats it as fixed: only the loop body's uses of w count (maximum_iterations caps the loop at 5)
# expect: call 0 source w: connected
# expect: call 1 source w: connected
import tensorflow as tf

w = tf.Variable(1.5)

with tf.GradientTape(persistent=True) as tape:
    n = tf.cast(tf.floor(3.0 * w), tf.int32)

    def cond(k, acc):
        return k < n

    def body(k, acc):
        return [k + 1, acc * w]

    k, acc = tf.while_loop(cond, body, [0, tf.constant(1.0)])
    capped = tf.while_loop(lambda k, a: k < n, body, [0, tf.constant(1.0)], maximum_iterations=2)
    loss = acc + 0.0
    capped_loss = capped[1] * 1.0

print(k, loss, tape.gradient(loss, w))  # w**4: 4 w**3
print(tape.gradient(capped_loss, w))  # w**2: 2 w
