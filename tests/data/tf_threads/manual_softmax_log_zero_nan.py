import tensorflow as tf

W = tf.Variable([[30.0, -30.0], [-30.0, 30.0]])
x = tf.constant([[4.0, 0.0]])
y = tf.constant([[0.0, 1.0]])
with tf.GradientTape() as tape:
    pred = tf.nn.softmax(tf.matmul(x, W))
    cost = tf.reduce_mean(-tf.reduce_sum(y * tf.math.log(pred), axis=1))
print(cost, tape.gradient(cost, W))
