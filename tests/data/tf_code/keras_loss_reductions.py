# values: exact
# note: loss objects compute in float32: float64 inputs are cast (the gradient w.r.t. a float64 variable is float64); reduction 'sum', 'none' and sample_weight
# expect: call 0 source pred: connected
# expect: call 1 source pred: connected
# expect: call 2 source pred: connected
# expect: call 3 source pred64: connected
import numpy as np
import tensorflow as tf

y = tf.constant([[1.0, 0.0], [0.5, 2.0], [0.0, -1.0]])
pred = tf.Variable([[0.5, 0.5], [1.0, 1.0], [0.0, 0.0]])
pred64 = tf.Variable(np.array([[0.5, 0.5], [1.0, 1.0], [0.0, 0.0]]))

mse_sum = tf.keras.losses.MeanSquaredError(reduction="sum")
mae_none = tf.keras.losses.MeanAbsoluteError(reduction="none")
mse = tf.keras.losses.MeanSquaredError()

with tf.GradientTape(persistent=True) as tape:
    total = mse_sum(y, pred)
    per_sample = mae_none(y, pred)
    weighted = mse(y, pred, sample_weight=tf.constant([1.0, 0.0, 2.0]))
    from64 = mse(y, pred64)

print(tape.gradient(total, pred))
print(tape.gradient(per_sample, pred))
print(tape.gradient(weighted, pred))
print(from64.dtype, tape.gradient(from64, pred64))
