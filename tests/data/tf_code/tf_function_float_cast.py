# values: exact
# note: inside a tf.function AutoGraph turns float() of a tensor or a variable into tf.cast (the gradient flows through it) and int() into a cast to int32 (no gradient)
# expect: call 0 source x: connected
# expect: call 0 source w: connected
import tensorflow as tf

x = tf.Variable(2.0)
w = tf.Variable(1.5)


@tf.function
def f(v):
    return float(x) * x + float(v) * w + tf.cast(int(v), tf.float32)


with tf.GradientTape() as tape:
    y = f(w * 3.0)
print(tape.gradient(y, [x, w]))
