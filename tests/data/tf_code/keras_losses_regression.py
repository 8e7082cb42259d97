# values: exact
# expect: call 0 source y_pred: connected
# expect: call 1 source y_pred: connected
import tensorflow as tf

y_true = tf.constant([[1.0, 2.0], [3.0, 4.0]])
y_pred = tf.Variable([[1.5, 2.0], [2.0, 5.0]])

mse = tf.keras.losses.MeanSquaredError()
mae = tf.keras.losses.MeanAbsoluteError()

with tf.GradientTape(persistent=True) as tape:
    loss_mse = mse(y_true, y_pred)
    loss_mae = mae(y_true, y_pred)

print(tape.gradient(loss_mse, y_pred))
print(tape.gradient(loss_mae, y_pred))  # sign(pred - true) / 4, and 0 where equal
