# values: exact
# expect: call 0 source w: connected
# expect: call 0 source w_target: stop_gradient line 12
import tensorflow as tf

x = tf.constant([1.0, 2.0])
w = tf.Variable(0.5)
w_target = tf.Variable(1.5)

with tf.GradientTape() as tape:
    pred = w * x
    target = tf.stop_gradient(w_target * x)
    loss = tf.reduce_mean(tf.square(pred - target))

print(tape.gradient(loss, [w, w_target]))
