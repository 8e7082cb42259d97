# values: exact
# note: a helper returning two results, one computed from b: the loss uses the other, so the line that uses it drops what b computed (issue 29 names that line); c's last use is a product nothing reads
# expect: call 0 source a: connected
# expect: call 0 source b: no_path line 17
# expect: call 0 source c: no_path line 18
import tensorflow as tf

a = tf.Variable(2.0)
b = tf.Variable(3.0)
c = tf.Variable(4.0)

def heads(x):
    return x * a, x * b

with tf.GradientTape() as tape:
    p, q = heads(tf.constant(1.5))
    loss = p * p
    unused = c * 2.0
print(tape.gradient(loss, [a, b, c]))
