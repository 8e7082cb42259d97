import tensorflow as tf
w = tf.Variable(2.0)
@tf.function
def f():
    return tf.nn.relu(-w)
with tf.GradientTape() as tape:
    y = f()
print(tape.gradient(y, w))
