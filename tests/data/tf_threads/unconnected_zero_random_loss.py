import tensorflow as tf

model = tf.keras.Sequential()
model.add(tf.keras.layers.Dense(10, input_shape=(2,)))
with tf.GradientTape() as tape:
    loss = tf.random.normal((10, 10), seed=1)
grads = tape.gradient(loss, model.trainable_variables, unconnected_gradients="zero")
print(grads)
