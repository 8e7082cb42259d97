import tensorflow as tf
w = tf.Variable(2.0)
@tf.function
def f():
    return tf.round(w * 3.0)
with tf.GradientTape() as tape:
    y = f()
print(tape.gradient(y, w))
