import numpy as np
import tensorflow as tf

tf.keras.utils.set_random_seed(0)
model = tf.keras.Sequential(
    [tf.keras.Input(shape=(8, 8, 3)), tf.keras.layers.Conv2D(4, 3, activation="relu")]
)
pic = tf.convert_to_tensor(np.random.uniform(size=(1, 8, 8, 3)).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(pic)
    predictions = model.predict(pic, steps=1, verbose=0)[0][:, :, 2]
    loss = tf.reduce_mean(predictions)
gradients = tape.gradient(loss, pic)
print(gradients)
