# values: exact
# note: eagerly, tf.compat.v1.get_variable makes a new variable at every call (no sharing, even with reuse=True); the variable scope still names it
# expect: call 0 source v1: connected
# expect: call 0 source v2: connected
import tensorflow as tf

with tf.compat.v1.variable_scope("block"):
    v1 = tf.compat.v1.get_variable("v", shape=[2], initializer=tf.ones_initializer())
with tf.compat.v1.variable_scope("block", reuse=True):
    v2 = tf.compat.v1.get_variable("v", shape=[2], initializer=tf.compat.v1.constant_initializer([2.0, 3.0]))

with tf.GradientTape() as tape:
    loss = tf.reduce_sum(v1 * v2 * v2)

print(v1.name, v2.name, tape.gradient(loss, [v1, v2]))
