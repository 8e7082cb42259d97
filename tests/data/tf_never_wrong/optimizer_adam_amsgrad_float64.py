# values: exact
import tensorflow as tf

v = tf.Variable([2.0, -3.0], dtype=tf.float64)
opt = tf.keras.optimizers.Adam(learning_rate=0.05, amsgrad=True)
for step in range(4):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v * v)
    g = tape.gradient(loss, v)
    opt.apply([g], [v])
