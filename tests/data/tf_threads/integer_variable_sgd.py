import tensorflow as tf

x = tf.Variable(3, name="x")
opt = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    y = x * x - 4 * x + 4
grads = tape.gradient(y, [x])
print(grads)
opt.apply_gradients(zip(grads, [x]))
