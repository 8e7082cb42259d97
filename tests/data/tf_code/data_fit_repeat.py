# values: exact
# note: model.fit on a repeated dataset with steps_per_epoch and a validation dataset: the first batch's gradient
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf

x = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0], [5.0, 6.0, 7.0]], dtype=np.float32)
y = np.array([[1.0], [2.0], [3.0]], dtype=np.float32)
train = tf.data.Dataset.from_tensor_slices((x, y)).batch(2).repeat()
val = tf.data.Dataset.from_tensor_slices((x[:1], y[:1])).batch(1)

model = tf.keras.Sequential(
    [tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1, kernel_initializer="ones")]
)
model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mae")
model.fit(train, epochs=2, steps_per_epoch=2, validation_data=val, verbose=0)
