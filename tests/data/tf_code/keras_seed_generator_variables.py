# values: structure
# note: Keras 3 gives each Dropout layer and RNN cell a SeedGenerator whose int64 state is among variables and non_trainable_variables (not weights), named seed_generator_N/seed_generator_state in creation order
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: no_path
# expect: call 0 source #4: connected
# expect: call 0 source #5: connected
import tensorflow as tf
l = tf.keras.layers.LSTM(2)
g = tf.keras.layers.GRU(2)
s = tf.keras.layers.SimpleRNN(2)
d = tf.keras.layers.Dropout(0.5)
x = tf.ones((1, 3, 4))
l(x)
g(x)
s(x)
d(tf.ones((2, 2)), training=True)
m = tf.keras.Sequential([tf.keras.Input((3, 4)), tf.keras.layers.LSTM(2), tf.keras.layers.Dense(1)])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(m(x))
grads = tape.gradient(loss, m.variables)
assert [v.path for v in m.weights] == [v.path for v in m.variables if "seed" not in v.path]
assert len(l.weights) == 3 and len(l.variables) == 4 and len(d.variables) == 1
