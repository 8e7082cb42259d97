import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])


@tf.function
def train(data):
    batch_size = data.shape[0]
    grads = tf.TensorArray(tf.float32, size=batch_size)
    for i in tf.range(batch_size):
        with tf.GradientTape() as tape:
            if True:
                y = model(data[i][tf.newaxis, :])
                loss = tf.reduce_mean(y)
        grad = tape.gradient(loss, model.trainable_variables[1])
        grads = grads.write(i, grad)
    return grads.stack()


print(train(tf.constant(np.random.rand(3, 3).astype("float32"))))
