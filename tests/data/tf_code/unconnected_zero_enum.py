# values: exact
# expect: call 0 source a: connected
# expect: call 0 source b: stop_gradient line 10
import tensorflow as tf

a = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
b = tf.Variable([[0.5, 0.5], [0.5, 0.5]], dtype=tf.float64)

with tf.GradientTape() as tape:
    c = a * tf.stop_gradient(b)
    loss = tf.reduce_sum(c)

grads = tape.gradient(loss, [a, b], unconnected_gradients=tf.UnconnectedGradients.ZERO)
print(grads)
