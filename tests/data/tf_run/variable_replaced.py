import tensorflow as tf

w = tf.Variable([1.0, -2.0])
x = tf.constant([0.5, 3.0])
lr = 0.1

for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((w * x - 1.0) ** 2)
    g = tape.gradient(loss, w)
    print(step, g)
    if g is None:
        break
    w = w - lr * g
