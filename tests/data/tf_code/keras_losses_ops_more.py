# values: exact
# note: keras.ops cumsum (axis None flattens), cumprod, dot (vector and matrix forms), top_k (a namedtuple, also indexed)
# expect: call 0 source p: connected
# expect: call 1 source p: connected
# expect: call 1 source v: connected
# expect: call 2 source p: connected
import keras
import tensorflow as tf
from keras import ops

p = tf.Variable([[0.25, 0.5, 0.75], [0.75, 0.0, 0.125]])
v = tf.Variable([1.0, -2.0, 0.5])
with tf.GradientTape(persistent=True) as tape:
    a = ops.sum(ops.cumsum(p) * ops.reshape(ops.cumprod(p, axis=1), (-1,)))
    b = ops.sum(ops.dot(p, v)) + ops.sum(ops.dot(p, ops.transpose(p))) + ops.dot(v, v)
    c = ops.sum(ops.top_k(p, 2).values) + ops.sum(ops.top_k(p, 1)[0])
print(tape.gradient(a, p))
print(tape.gradient(b, [p, v]))
print(tape.gradient(c, p))
