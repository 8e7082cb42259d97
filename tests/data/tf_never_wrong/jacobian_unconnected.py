# values: exact
# note: TensorFlow 2.21: jacobian of an unconnected source is None (zeros with
# note: unconnected_gradients=ZERO); batch_jacobian's is zeros in either mode
import tensorflow as tf

x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
z = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape(persistent=True) as tape:
    y = z * 2.0
j = tape.jacobian(y, x)
jz = tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
bj = tape.batch_jacobian(y, x)
bjz = tape.batch_jacobian(y, [x][0], unconnected_gradients="zero")
