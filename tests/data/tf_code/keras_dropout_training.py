# values: structure
# note: Dropout(0.5) called with training=True draws a random mask (tf.nn.dropout); the surviving elements are scaled by 2
# expect: call 0 source #0: connected
import tensorflow as tf

layer = tf.keras.layers.Dense(4)
drop = tf.keras.layers.Dropout(0.5, seed=1)
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(drop(layer(x), training=True))

print(tape.gradient(loss, layer.trainable_variables))
