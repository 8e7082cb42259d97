# values: exact
# note: Adam (float32) and SGD with Nesterov momentum (float64) over four steps
import tensorflow as tf

w = tf.Variable([1.0, -2.0, 0.5])
b = tf.Variable(0.3)
opt = tf.keras.optimizers.Adam(learning_rate=0.01)
sgd = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True)
v = tf.Variable([2.0, 3.0], dtype=tf.float64)
x = tf.constant([0.5, 1.5, -1.0])
for step in range(4):
    with tf.GradientTape() as tape:
        sq = tf.reduce_sum(v * v * 0.5)
        loss = tf.reduce_sum(tf.square(w * x - b)) + tf.cast(sq, tf.float32)
    gw, gb, gv = tape.gradient(loss, [w, b, v])
    opt.apply_gradients(zip([gw, gb], [w, b]))
    sgd.apply_gradients([(gv, v)])
