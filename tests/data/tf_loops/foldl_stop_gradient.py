import tensorflow as tf
w = tf.Variable([1.0, 2.0])
@tf.function
def f():
    return tf.foldl(lambda a, v: a + tf.stop_gradient(v * 2.0), w, initializer=tf.constant(0.0))
with tf.GradientTape() as tape:
    y = f()
print(tape.gradient(y, w))
