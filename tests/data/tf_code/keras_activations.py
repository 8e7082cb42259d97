# values: exact
# note: relu's gradient at exactly 0.0 is 0
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 2 source x: connected
# expect: call 3 source x: connected
# expect: call 4 source x: connected
import tensorflow as tf

x = tf.Variable([-1.5, 0.0, 2.0])

with tf.GradientTape(persistent=True) as tape:
    relu = tf.reduce_sum(tf.keras.activations.relu(x))
    sigmoid = tf.reduce_sum(tf.keras.activations.sigmoid(x))
    tanh = tf.reduce_sum(tf.keras.activations.tanh(x))
    softplus = tf.reduce_sum(tf.keras.activations.softplus(x))
    elu = tf.reduce_sum(tf.keras.activations.elu(x))

for name, y in [("relu", relu), ("sigmoid", sigmoid), ("tanh", tanh),
                ("softplus", softplus), ("elu", elu)]:
    print(name, tape.gradient(y, x).numpy())
