import tensorflow as tf

w = tf.Variable([1.0, -1.0])
b = tf.Variable(0.0)
x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
y = tf.constant([1.0, 0.0])


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = tf.linalg.matvec(x, w)
        pred = tf.round(pred) + b
        loss = tf.reduce_mean((pred - y) ** 2)
    return tape.gradient(loss, [w, b])


print(train_step(x, y))
