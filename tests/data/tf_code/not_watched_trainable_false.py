# values: exact
# expect: call 0 source w: connected
# expect: call 0 source scale: not_watched line 7
import tensorflow as tf

w = tf.Variable([1.0, 2.0])
scale = tf.Variable(0.5, trainable=False)

with tf.GradientTape() as tape:
    loss = tf.reduce_sum(scale * w * w)

grads = tape.gradient(loss, [w, scale])
print(grads)
