# values: exact
# expect: call 0 source w: connected
# expect: call 0 source step: integer line 6
import tensorflow as tf

step = tf.Variable(3)  # an int32 variable
w = tf.Variable(2.0)

with tf.GradientTape() as tape:
    loss = w * tf.cast(step, tf.float32)

grads = tape.gradient(loss, [w, step])
print(grads)
