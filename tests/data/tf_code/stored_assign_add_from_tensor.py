# values: exact
# note: v.assign_add(x * 2.0) inside the tape writes into v: the later read of v is connected to v, not to x (issue 29: cut at the write, non_differentiable)
# expect: call 0 source x: non_differentiable line 10
# expect: call 1 source v: connected
import tensorflow as tf

x = tf.Variable(3.0)
v = tf.Variable(1.0)
with tf.GradientTape(persistent=True) as tape:
    v.assign_add(x * 2.0)
    loss = v * 3.0
print(tape.gradient(loss, x))
print(tape.gradient(loss, v))
