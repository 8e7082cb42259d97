import tensorflow as tf

x = tf.Variable(2.0)
c = tf.constant([0.0, 1.0, 3.0])
with tf.GradientTape() as tape:
    terms = tf.sqrt(c * x)
    loss = tf.reduce_sum(terms)
print(tape.gradient(loss, x))
