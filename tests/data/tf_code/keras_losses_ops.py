# values: exact
# note: custom losses written with Keras 3's keras.ops: float64 stays float64 (pred64), Python floats are float32; keras.ops.argmax cuts the gradient
# expect: call 0 source y_pred: connected
# expect: call 1 source y_pred: connected
# expect: call 2 source pred64: connected
# expect: call 3 source y_pred: connected
# expect: call 4 source y_pred: non_differentiable line 36
import keras
import numpy as np
import tensorflow as tf
from keras import ops

y_true = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
y_pred = tf.Variable([[0.5, 2.0, -1.0], [1.5, 0.25, 0.5]])
pred64 = tf.Variable(np.array([[0.5, 2.0], [-1.0, 4.0]]))


def rmse(y_true, y_pred):
    return ops.sqrt(ops.mean(ops.square(y_true - y_pred), axis=-1))


def clipped_ratio(y_true, y_pred):
    ratio = ops.clip(y_pred, 0.0, 1.0) / ops.maximum(ops.sum(y_pred, axis=1, keepdims=True), 1.0)
    picked = ops.take(ops.reshape(ratio, (-1,)), [1, 3])
    return ops.sum(ops.where(y_true > 0, -ops.log(ratio + 1e-3), ops.abs(ratio))) + ops.sum(picked)


with tf.GradientTape(persistent=True) as tape:
    loss_rmse = ops.mean(rmse(y_true, y_pred))
    loss_ratio = clipped_ratio(y_true, y_pred)
    loss64 = ops.sum(ops.exp(ops.minimum(pred64, 1.0)) * 2.0)
    probs = ops.softmax(ops.matmul(y_pred, ops.transpose(ops.stack([y_true[0], y_true[1]]))))
    loss_xent = ops.mean(keras.losses.categorical_crossentropy(
        ops.one_hot(ops.convert_to_tensor([1, 0]), 2), probs))
    joined = ops.concatenate([ops.relu(y_pred), ops.sigmoid(y_pred)], axis=0)
    loss_arg = ops.sum(ops.cast(ops.argmax(joined, axis=-1), "float32"))

print(tape.gradient(loss_rmse, y_pred))
print(tape.gradient(loss_ratio, y_pred))
print(loss64.dtype, tape.gradient(loss64, pred64))
print(tape.gradient(loss_xent, y_pred))
print(tape.gradient(loss_arg, y_pred))
