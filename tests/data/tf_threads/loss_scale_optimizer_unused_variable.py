# https://github.com/tensorflow/tensorflow/issues/31956
import tensorflow as tf

w1 = tf.Variable(2.0)
w2 = tf.Variable(3.0)
opt = tf.keras.mixed_precision.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1))
with tf.GradientTape() as tape:
    loss = w1 * w1
    scaled_loss = opt.scale_loss(loss)
grads = tape.gradient(scaled_loss, [w1, w2])
opt.apply_gradients(zip(grads, [w1, w2]))
print(w1.numpy(), w2.numpy())
