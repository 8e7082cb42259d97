# values: exact
# note: model.losses computes its penalties when it is read: read before the tape, they are constants to it, so the kernel's gradient lacks the penalty's 2 * 0.5 * kernel (TensorFlow gives no error)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
import numpy as np
import tensorflow as tf


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv1D(1, 2, kernel_regularizer=tf.keras.regularizers.L2(0.5))

    def call(self, x):
        return tf.reduce_sum(self.conv(x), axis=[1, 2])


net = Net()
x = tf.constant([[[1.0], [2.0], [-1.0]]])
net(x)
net.set_weights([np.array([[[0.5]], [[-0.25]]]), np.array([0.125])])
penalty = tf.add_n(net.losses)

with tf.GradientTape() as tape:
    loss = net(x) ** 2 + penalty

print(tape.gradient(loss, net.trainable_variables))
