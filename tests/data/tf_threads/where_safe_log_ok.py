import numpy as np
import tensorflow as tf

x = tf.convert_to_tensor(np.array([1.5, -0.5, 2.0, -1.0], dtype=np.float32))
alpha = tf.Variable(1.0, name="asdf", dtype=tf.float32, trainable=True)
with tf.GradientTape() as t:
    safe_x = tf.where(x > 0, x, tf.ones_like(x))
    s = tf.where(x >= 0, alpha * tf.math.log(safe_x), tf.zeros_like(x))
gradients = t.gradient(s, [alpha])
print(gradients)
