import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3)])
loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
features = np.random.rand(5, 4).astype("float32")
labels = np.array([0, 2, 1, 1, 0])


def loss(model, x, y):
    y_ = model(x)
    losses = []
    for i in range(y.shape[0]):
        item = loss_object(y_true=y[i : i + 1], y_pred=y_[i : i + 1])
        losses.append(float(item))
    dis = np.std(losses)
    return tf.convert_to_tensor(dis, dtype=np.float32)


with tf.GradientTape() as tape:
    loss_value = loss(model, features, labels)
grads = tape.gradient(loss_value, model.trainable_variables)
print(grads)
