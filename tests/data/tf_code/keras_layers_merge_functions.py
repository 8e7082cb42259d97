# values: exact
# note: the lowercase merge functions (keras.layers.add, subtract, multiply, average, maximum, minimum, concatenate, dot) make a layer and call it; Dot with an int, negative and paired axes, normalize=True, rank-2 and rank-3 inputs (batch_dot's expand, transpose and squeeze)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 1 source #2: connected
import tensorflow as tf

a = tf.Variable([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
b = tf.Variable([[2.0, 0.5, -1.0], [1.0, -0.5, 4.0]])
c = tf.Variable([[[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]], [[-2.0, 1.0], [1.5, 0.5], [0.0, 2.0]]])

with tf.GradientTape() as tape:
    s = tf.keras.layers.add([a, b, a])
    d = tf.keras.layers.subtract([s, b])
    m = tf.keras.layers.multiply([d, b])
    v = tf.keras.layers.average([m, a])
    hi = tf.keras.layers.maximum([v, b])
    lo = tf.keras.layers.minimum([hi, a])
    cat = tf.keras.layers.concatenate([lo, v], axis=-1)
    p1 = tf.keras.layers.dot([a, b], axes=1)
    p2 = tf.keras.layers.dot([a, b], axes=-1, normalize=True)
    p3 = tf.keras.layers.Dot(axes=(1, 1))([a, c])
    p4 = tf.keras.layers.Dot(axes=[2, 2])([c, c])
    p5 = tf.keras.layers.Dot(axes=1, normalize=True)([c, c])
    loss = (tf.reduce_sum(cat * cat) + tf.reduce_sum(p1 * p2) + tf.reduce_sum(p3 * p3)
            + tf.reduce_sum(p4) + tf.reduce_sum(p5 * p5))

print(p1.shape, p3.shape, p4.shape, p5.shape)
print(tape.gradient(loss, [a, b, c]))

w = tf.Variable([0.5, -1.0])
with tf.GradientTape() as tape:
    # inputs of different ranks: Keras expands each at axis 1 up to the largest rank
    r1 = tf.keras.layers.Add()([a, w])
    r2 = tf.keras.layers.multiply([c, w, a[:, :2]])
    loss = tf.reduce_sum(r1 * r1) + tf.reduce_sum(r2 * r2) + tf.reduce_sum(tf.keras.layers.maximum([c, w]))
print(tape.gradient(loss, [a, c, w]))
