import tensorflow as tf
w = tf.Variable(2.0)
@tf.function
def f():
    i = tf.constant(0)
    acc = tf.constant(1.0)
    i, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.round(a * w)), [i, acc])
    return acc
with tf.GradientTape() as tape:
    y = f()
print(tape.gradient(y, w))
