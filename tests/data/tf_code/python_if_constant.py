# values: exact
# expect: call 0 source w_relu: connected
# expect: call 0 source w_tanh: untaken_branch line 12
import tensorflow as tf

USE_RELU = True
x = tf.constant([1.0, -2.0])
w_relu = tf.Variable(0.5)
w_tanh = tf.Variable(0.5)

with tf.GradientTape() as tape:
    if USE_RELU:
        h = tf.nn.relu(w_relu * x)
    else:
        h = tf.tanh(w_tanh * x)
    loss = tf.reduce_sum(h)

print(tape.gradient(loss, [w_relu, w_tanh]))
