# https://github.com/tensorflow/tensorflow/issues/42835
import tensorflow as tf

x = tf.ones((1, 1))
for k in range(0, 3):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = 2 * x
    g = tape.jacobian(y, x)
print(g)
