# values: exact
# expect: call 0 source w: connected
# expect: call 1 source w: connected
# expect: call 2 source w: connected
import tensorflow as tf

w = tf.Variable(2.0)

with tf.GradientTape() as tape:
    loss = w * w
print(tape.gradient(loss, w))  # 2 * 2.0

w.assign(5.0)
with tf.GradientTape() as tape:
    loss = w * w
print(tape.gradient(loss, w))  # 2 * 5.0

w.assign_add(1.0)
with tf.GradientTape() as tape:
    loss = w * w
print(tape.gradient(loss, w))  # 2 * 6.0
