# values: exact
# note: model.predict returns NumPy: a loss computed from it under a tape has no gradient (leaves_tape at the predict line); model(x) keeps it
# note: calls 1 and 2 read predict's and evaluate's values (before any training): d(sum(w * p))/dw = p, d(v * ev)/dv = ev
# expect: call 0 source #0: leaves_tape line 17
# expect: call 0 source #1: leaves_tape line 17
# expect: call 1 source w: connected
# expect: call 2 source v: connected
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2, activation="relu")])
model.set_weights([np.array([[0.5, -1.0], [0.25, 0.5], [-0.5, 1.0]]), np.array([0.1, -0.2])])
model.compile(optimizer="sgd", loss="mae")
x = np.array([[-1.0, -0.75, -0.5], [-0.25, 0.0, 0.25], [0.5, 0.75, 1.0], [1.25, -1.5, 0.5], [2.0, 1.0, -2.0]])
y = np.array([[0.5, -0.5], [1.0, 0.0], [0.0, 0.25], [-1.0, 1.0], [0.3, 0.3]])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model.predict(x, verbose=0) - y)
print(tape.gradient(loss, model.trainable_variables))

p = model.predict(x, batch_size=2, verbose=0)
w = tf.Variable(tf.ones((5, 2)))
with tf.GradientTape() as tape:
    s = tf.reduce_sum(w * p)
print(tape.gradient(s, w))

ev = model.evaluate(x, y, batch_size=2, verbose=0)
one = model.test_on_batch(x[:3], y[:3])
v = tf.Variable([1.0, 1.0])
with tf.GradientTape() as tape:
    t = v[0] * ev + v[1] * one
print(tape.gradient(t, v))
