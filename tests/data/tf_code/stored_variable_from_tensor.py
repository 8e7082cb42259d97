# values: exact
# note: tf.Variable(y) inside the tape copies y: the loss reads the new variable z, so the gradient for x is None (no path back through the copy) and z's own gradient is 2
# expect: call 0 source x: non_differentiable line 10
# expect: call 1 source z: connected
import tensorflow as tf

x = tf.Variable(3.0)
with tf.GradientTape(persistent=True) as tape:
    y = x**2
    z = tf.Variable(y)
    loss = z * 2.0
print(tape.gradient(loss, x))
print(tape.gradient(loss, z))
