import tensorflow as tf
w = tf.Variable(2.0)
xs = tf.constant([1.0, 2.0, 3.0])
@tf.function
def f():
    return tf.scan(lambda a, x: tf.math.floor(a * w + x), xs, initializer=tf.constant(0.0))
with tf.GradientTape() as tape:
    y = tf.reduce_sum(f())
print(tape.gradient(y, w))
