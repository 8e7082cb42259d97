# values: exact
# expect: call 0 source w: connected
# expect: call 0 source unused: no_path
# expect: call 1 source w: connected
# expect: call 1 source unused: no_path
import tensorflow as tf

w = tf.Variable([1.0, 2.0])
unused = tf.Variable([[0.5, 0.5, 0.5]])

with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_sum(w * w)

print(tape.gradient(loss, [w, unused]))
print(tape.gradient(loss, [w, unused], unconnected_gradients='zero'))
