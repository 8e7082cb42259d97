# values: exact
# note: the merge layers fold their list left to right; Activation, Lambda (a lambda and a def), Reshape, and Dropout outside training (the identity)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
import tensorflow as tf


def halve(t):
    return t / 2.0


inputs = tf.keras.Input(shape=(3,))
a = tf.keras.layers.Dense(3, kernel_initializer=tf.keras.initializers.Constant(0.5))(inputs)
b = tf.keras.layers.Dense(3, kernel_initializer="ones", bias_initializer="ones")(inputs)
added = tf.keras.layers.Add()([a, b, inputs])
product = tf.keras.layers.Multiply()([a, b])
diff = tf.keras.layers.Subtract()([product, added])
mean = tf.keras.layers.Average()([a, diff])
top = tf.keras.layers.Maximum()([mean, a])
low = tf.keras.layers.Minimum()([top, b])
act = tf.keras.layers.Activation("tanh")(low)
sq = tf.keras.layers.Lambda(lambda t: t * t)(act)
hv = tf.keras.layers.Lambda(halve)(sq)
joined = tf.keras.layers.Concatenate()([hv, diff])
dropped = tf.keras.layers.Dropout(0.5)(joined)
shaped = tf.keras.layers.Reshape((3, 2))(dropped)
model = tf.keras.Model(inputs, shaped)

x = tf.constant([[1.0, -2.0, 0.5], [0.25, 0.0, -1.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x) * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))

grads = tape.gradient(loss, model.trainable_variables)
print([v.path for v in model.trainable_variables])
print(grads)
