# values: exact
# note: activation= given a layer (LeakyReLU, PReLU): Keras tracks it as the Dense's sub-layer, so PReLU's alpha is among the model's variables as sequential/dense_1/p_re_lu/alpha
# expect: call 0 source model.trainable_variables[4]: connected
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation=tf.keras.layers.LeakyReLU(negative_slope=0.25), kernel_initializer=tf.keras.initializers.Constant(0.5), bias_initializer=tf.keras.initializers.Constant(-1.0)),
    tf.keras.layers.Dense(1, activation=tf.keras.layers.PReLU(), kernel_initializer="ones"),
])
x = tf.constant([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x))
print([v.path for v in model.trainable_variables], [l.name for l in model.layers])
print(tape.gradient(loss, model.trainable_variables))
