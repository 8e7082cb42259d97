import tensorflow as tf

x = tf.constant([[1.0, 2.0]])
w = tf.Variable([[1.0, 0.0], [0.0, 1.0]])
b = tf.Variable([[0.0, 0.0]])

with tf.GradientTape() as tape:
    tape.watch(w)
    # y does not depend on w
    y = tf.add(x, b)
    loss = tf.reduce_mean(y)

# Get gradients
gradients = tape.gradient(loss, [w], unconnected_gradients=tf.UnconnectedGradients.ZERO)
print(gradients)
# Output: []

# values: exact
# note: the article prints []; TensorFlow returns zeros of w's shape
# expect: call 0 source w: no_path
