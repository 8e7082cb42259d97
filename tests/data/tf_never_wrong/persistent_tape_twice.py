# values: exact
# expect: call 0 source x: connected
# expect: call 1 source x: connected
import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    y = x * x
    z = tf.reduce_sum(y * x)
dy = tape.gradient(y, x)
dz = tape.gradient(z, x)
del tape
