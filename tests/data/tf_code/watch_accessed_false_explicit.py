# values: exact
# expect: call 0 source w: connected
# expect: call 0 source b: not_watched line 10
import tensorflow as tf

w = tf.Variable(2.0)
b = tf.Variable(1.0)
x = tf.constant(3.0)

with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(w)
    y = w * x + b

print(tape.gradient(y, [w, b]))
