# values: exact
# note: the first update writes -inf into w (SGD, learning rate 1, gradient inf): the second
# note: gradient is NaN in TensorFlow, so the reader must compute the update
import tensorflow as tf

w = tf.Variable(1.0)
opt = tf.keras.optimizers.SGD(learning_rate=1.0)
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.sqrt(w - 1.0)
    g = tape.gradient(loss, w)
    opt.apply_gradients([(g, w)])
