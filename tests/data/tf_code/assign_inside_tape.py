# values: exact
# note: assign_add inside the tape: the later read of w sees the new value (3.0) and is connected to w
# expect: call 0 source w: connected
import tensorflow as tf

w = tf.Variable(2.0)
x = tf.constant(4.0)

with tf.GradientTape() as tape:
    w.assign_add(1.0)
    loss = w * w * x

print(tape.gradient(loss, w))  # 2 * 3.0 * 4.0
