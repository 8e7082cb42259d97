import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
data_input = tf.keras.Input(shape=(4,))
x0 = tf.keras.layers.Dense(3)(data_input)
x1 = tf.keras.layers.Dense(3)(data_input)
net = tf.keras.Model(data_input, [x0, x1])

batch = tf.constant(np.random.rand(2, 4).astype("float32"))
with tf.GradientTape() as tape:
    first = net(batch)[0]
    loss = tf.reduce_mean(tf.square(first))
grads = tape.gradient(loss, net.trainable_variables)
print([g is None for g in grads])
