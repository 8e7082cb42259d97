# values: exact
# expect: call 0 source w: not_watched line 10
# expect: call 0 source b: not_watched line 10
import tensorflow as tf

w = tf.Variable(2.0)
b = tf.Variable(1.0)
x = tf.constant(3.0)

with tf.GradientTape(watch_accessed_variables=False) as tape:
    y = w * x + b

print(tape.gradient(y, [w, b]))
