import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
body = tf.keras.layers.Dense(4, activation="tanh")
head_a = tf.keras.layers.Dense(1)
head_b = tf.keras.layers.Dense(1)
x = tf.constant(np.random.rand(3, 2).astype("float32"))
_ = head_b(body(x))


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        h = body(x)
        loss = tf.reduce_mean(tf.square(head_a(h)))
        for _ in tf.range(2):
            loss = loss * 0.5
    return tape.gradient(loss, head_a.trainable_variables + head_b.trainable_variables)


print(train_step(x))
