# values: exact
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 1 source unused: no_path
# expect: call 2 source x: connected
# expect: call 2 source unused: no_path
import tensorflow as tf

x = tf.Variable([1.0, 2.0, 3.0])
unused = tf.Variable([5.0, 6.0])

with tf.GradientTape(persistent=True) as tape:
    y = x * x
    z = tf.reduce_sum(y) * y

print(tape.jacobian(y, x))  # diag(2x)
print(tape.jacobian(z, [x, unused]))
print(tape.jacobian(z, [x, unused], unconnected_gradients=tf.UnconnectedGradients.ZERO))
