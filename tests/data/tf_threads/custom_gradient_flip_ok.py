import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)


@tf.custom_gradient
def flip_grad_layer(x, l):
    def grad(dy):
        return tf.negative(dy) * l, None

    return tf.identity(x), grad


features = tf.keras.layers.Dense(3)
domain_head = tf.keras.layers.Dense(1)
images = tf.constant(np.random.rand(4, 2).astype("float32"))
with tf.GradientTape() as tape:
    h = features(images)
    domain_logits = domain_head(flip_grad_layer(h, tf.constant(0.5)))
    loss = tf.reduce_mean(tf.square(domain_logits))
grads = tape.gradient(loss, features.trainable_variables + domain_head.trainable_variables)
print(grads)
