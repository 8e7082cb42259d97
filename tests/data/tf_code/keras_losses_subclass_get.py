# values: exact
# note: a keras.losses.Loss subclass with keras.ops, positional loss options (Huber(0.5, "none")), sample_weight, keras.ops clip/log/where and list axes, K.int_shape, keras.losses.get
# expect: call 0 source p: connected
# expect: call 1 source p: connected
# expect: call 2 source p: connected
# expect: call 3 source p: connected
# expect: call 4 source p: connected
# expect: call 5 source p: connected
import keras
import numpy as np
import tensorflow as tf
from keras import losses, ops
from keras.losses import Huber
from tensorflow.keras import backend as K


class WeightedMSE(keras.losses.Loss):
    def __init__(self, w=1.0, **kwargs):
        super().__init__(**kwargs)
        self.w = w

    def call(self, y_true, y_pred):
        return ops.mean(ops.square(y_true - y_pred), axis=-1) * self.w


y = tf.constant([[0.0, 1.0], [1.0, 0.0]])
p = tf.Variable([[0.25, 0.5], [0.75, 0.0]])
with tf.GradientTape(persistent=True) as tape:
    a = WeightedMSE(2.0, reduction="sum", name="wmse")(y, p)
    b = Huber(0.5, "none")(y, p)
    c = losses.Poisson()(y, p, sample_weight=[1.0, 0.5])
    d = ops.sum(ops.log(ops.clip(p, 1e-7, 1 - 1e-7)) * y, axis=[0, 1])
    e = ops.sum(ops.where(p > 0.3, p, 0.0)) + K.sum(p) / K.int_shape(p)[-1] + ops.ndim(p)
    f = keras.losses.get("huber")(y, p)
for t in (a, b, c, d, e, f):
    print(tape.gradient(t, p))
