# values: exact
# note: layer.trainable = False drops the layer from trainable_variables, but its variables are still watched: asked explicitly, TF returns a real gradient
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source frozen.kernel: connected
import tensorflow as tf

frozen = tf.keras.layers.Dense(2, kernel_initializer="ones", name="frozen")
head = tf.keras.layers.Dense(1, kernel_initializer="ones", name="head")
model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), frozen, head])
frozen.trainable = False

x = tf.constant([[1.0, 2.0]])
with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_sum(model(x))

print(len(model.trainable_variables))  # 2: only the head
print(tape.gradient(loss, model.trainable_variables))
print(tape.gradient(loss, frozen.kernel))
