import tensorflow as tf

tf.keras.utils.set_random_seed(0)
x = tf.random.normal([4, 3])
y = tf.one_hot([0, 1, 1, 0], depth=2)
w1 = tf.Variable(tf.random.truncated_normal([3, 2], stddev=0.1))
b1 = tf.zeros([2])
lr = 0.01

with tf.GradientTape() as tape:
    out = x @ w1 + b1
    loss = tf.reduce_mean(tf.square(y - out))
grads = tape.gradient(loss, [w1, b1])
for p, g in zip([w1, b1], grads):
    p.assign_sub(lr * g)
