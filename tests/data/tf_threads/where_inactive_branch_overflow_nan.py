import tensorflow as tf

a = tf.Variable(10.0)
with tf.GradientTape() as tape:
    out = tf.where(a < 15.0, a, tf.math.pow(10.0, tf.math.exp(a)))
grads = tape.gradient(out, a)
print(grads)
