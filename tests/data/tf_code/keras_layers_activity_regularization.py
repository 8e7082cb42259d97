# values: exact
# note: ActivityRegularization(l1, l2) and Dense(activity_regularizer="l2") add regularizer(output) / batch size to model.losses on each call (cleared when the outermost call starts); the noise and dropout layers are the identity outside training (GaussianNoise's gradient is 1 in training too); fit adds model.losses to the compiled loss
# expect: call 0 source #0: connected
# expect: call 1 source x: connected
# expect: call 2 source model.trainable_variables[0]: connected
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.5),
                          bias_initializer="ones", activity_regularizer="l2"),
    tf.keras.layers.ActivityRegularization(l1=0.5, l2=0.25),
    tf.keras.layers.Dense(1, kernel_initializer="ones", use_bias=False),
])
noisy = [tf.keras.layers.GaussianNoise(0.5), tf.keras.layers.GaussianDropout(0.5),
         tf.keras.layers.AlphaDropout(0.5), tf.keras.layers.SpatialDropout1D(0.5)]
x = tf.constant([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
y = tf.constant([[1.0], [-1.0]])

with tf.GradientTape() as tape:
    out = model(x)
    model(x)
    out = tf.expand_dims(out, -1)
    for layer in noisy:
        out = layer(out)
    loss = tf.reduce_sum(out) + tf.add_n(model.losses)
print(len(model.losses), [float(v) for v in model.losses])
print(tape.gradient(loss, model.trainable_variables))

noise = tf.keras.layers.GaussianNoise(0.25)
with tf.GradientTape() as tape:
    tape.watch(x)
    total = tf.reduce_sum(noise(x, training=True))
print(tape.gradient(total, x))

model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, epochs=1, verbose=0)
