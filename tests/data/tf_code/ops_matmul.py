# values: exact
# expect: call 0 source a: connected
# expect: call 0 source b: connected
# expect: call 1 source a: connected
# expect: call 1 source b: connected
import numpy as np
import tensorflow as tf

a = tf.Variable(np.array([[1.0, 2.0, 0.0], [-1.0, 0.5, 3.0]]))
b = tf.Variable(np.array([[0.5, -1.0], [2.0, 1.0], [0.0, 4.0]]))

with tf.GradientTape(persistent=True) as tape:
    product = tf.matmul(a, b)
    loss_sum = tf.reduce_sum(product)
    loss_sq = tf.reduce_sum((a @ b) ** 2)

print(tape.gradient(loss_sum, [a, b]))
print(tape.gradient(loss_sq, [a, b]))
