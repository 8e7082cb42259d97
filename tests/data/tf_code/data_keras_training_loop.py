# values: structure
# note: the Keras guide's training loop from scratch on a shuffled, batched dataset: one gradient call per step (2 epochs of 3 batches)
# expect: call 0 source model.trainable_weights[0]: connected
# expect: call 0 source model.trainable_weights[3]: connected
# expect: call 5 source model.trainable_weights[2]: connected
import numpy as np
import tensorflow as tf
from tensorflow import keras

x_train = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.1, 0.0, 0.9], [0.3, 0.3, 0.3, 0.3],
                    [0.9, 0.8, 0.1, 0.0], [0.2, 0.7, 0.6, 0.1], [0.0, 0.0, 1.0, 0.5],
                    [0.4, 0.4, 0.2, 0.8], [0.6, 0.1, 0.9, 0.2], [0.7, 0.5, 0.5, 0.6],
                    [0.1, 0.9, 0.4, 0.3]], dtype="float32")
y_train = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])

model = keras.Sequential(
    [keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)]
)
optimizer = keras.optimizers.Adam(learning_rate=1e-3)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_dataset = train_dataset.shuffle(buffer_size=1024).batch(4)
val_dataset = tf.data.Dataset.from_tensor_slices((x_train[:4], y_train[:4])).batch(4)

epochs = 2
for epoch in range(epochs):
    for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
        with tf.GradientTape() as tape:
            logits = model(x_batch_train, training=True)
            loss_value = loss_fn(y_batch_train, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
    for x_batch_val, y_batch_val in val_dataset:
        val_logits = model(x_batch_val, training=False)
