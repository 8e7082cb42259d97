# values: exact
# note: Keras 3 optimizers have no minimize (TensorFlow 2.21 raises AttributeError at the call); gradcli stops there with TensorFlow's error
import tensorflow as tf

w = tf.Variable(2.0)
opt = tf.keras.optimizers.SGD(0.1)
opt.minimize(lambda: w * w, [w])
with tf.GradientTape() as tape:
    y = w * 3.0
print(tape.gradient(y, w))
