import tensorflow as tf
w = tf.Variable([1.0, 2.0, 3.0])
@tf.function
def f():
    return tf.map_fn(lambda v: tf.round(v * 2.0), w)
with tf.GradientTape() as tape:
    y = tf.reduce_sum(f())
print(tape.gradient(y, w))
