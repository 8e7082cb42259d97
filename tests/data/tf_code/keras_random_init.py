# values: structure
# note: default (random) initialisers: compare None-ness, shapes and dtypes only
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(8, activation="relu"),
    tf.keras.layers.Dense(3),
])
x = tf.ones((5, 4))
labels = tf.constant([0, 1, 2, 1, 0])
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

with tf.GradientTape() as tape:
    loss = loss_fn(labels, model(x, training=True))

grads = tape.gradient(loss, model.trainable_variables)
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
