# values: exact
# note: more of the legacy backend: K.switch (tf.where, tf.cond for a scalar condition), K.repeat_elements, K.get_value (leaves the tape: only the other factor passes a gradient); keras.ops full, full_like (a tensor fill gets the summed gradient), arange, eye
# expect: call 0 source p: connected
# expect: call 1 source p: connected
# expect: call 2 source p: connected
# expect: call 3 source p: connected
# expect: call 3 source s: connected
# expect: call 4 source p: connected
# expect: call 5 source p: connected
# expect: call 6 source p: leaves_tape line 25
import keras
import tensorflow as tf
from keras import ops
from tensorflow.keras import backend as K

p = tf.Variable([[0.25, -0.5, 0.75], [1.5, 0.0, -0.125]])
s = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    a = K.sum(K.switch(p > 0.2, p * 2.0, K.square(p)))
    b = K.sum(K.switch(tf.constant([True, False, True]), p, -p))
    c = K.sum(K.repeat_elements(p, 2, axis=1) * K.repeat_elements(p, 2, axis=1))
    d = ops.sum(ops.full((2, 3), s) * p) + ops.sum(ops.full_like(p, 3.0) * p)
    e = ops.sum(ops.arange(3.0) * 1.0) + ops.sum(ops.cast(ops.arange(1, 7, 2), "float32")) + ops.sum(ops.eye(3) * 2.0) + ops.sum(p)
    f = K.sum(K.switch(K.sum(p) > 1.0, p * 3.0, p))
    g = tf.reduce_sum(K.get_value(p) * p)
print(tape.gradient(a, p))
print(tape.gradient(b, p))
print(tape.gradient(c, p))
print(tape.gradient(d, [p, s]))
print(tape.gradient(e, p))
print(tape.gradient(f, p))
print(tape.gradient(g, p))
