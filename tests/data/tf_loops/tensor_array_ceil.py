import tensorflow as tf
w = tf.Variable(2.0)
@tf.function
def f():
    ta = tf.TensorArray(tf.float32, size=3)
    for i in tf.range(3):
        ta = ta.write(i, tf.math.ceil(w * tf.cast(i, tf.float32)))
    return tf.reduce_sum(ta.stack())
with tf.GradientTape() as tape:
    y = f()
print(tape.gradient(y, w))
