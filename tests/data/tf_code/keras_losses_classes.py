# values: exact
# note: Keras 3's other loss classes under a tape, default reduction (sum_over_batch_size), float32
# expect: call 0 source y_pred: connected
# expect: call 1 source y_pred: connected
# expect: call 2 source y_pred: connected
# expect: call 3 source y_pred: connected
# expect: call 4 source y_pred: connected
# expect: call 5 source y_pred: connected
# expect: call 6 source y_pred: connected
# expect: call 7 source y_pred: connected
# expect: call 8 source y_pred: connected
# expect: call 9 source y_pred: connected
# expect: call 10 source y_pred: connected
# expect: call 11 source y_pred: connected
# expect: call 12 source y_pred: connected
# expect: call 13 source y_pred: connected
import tensorflow as tf

y_true = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])
y_pred = tf.Variable([[0.2, 0.7, 0.1], [0.9, 0.3, 0.6]])

with tf.GradientTape(persistent=True) as tape:
    huber = tf.keras.losses.Huber(delta=0.5)(y_true, y_pred)
    log_cosh = tf.keras.losses.LogCosh()(y_true, y_pred)
    kld = tf.keras.losses.KLDivergence()(y_true, y_pred)
    poisson = tf.keras.losses.Poisson()(y_true, y_pred)
    cosine = tf.keras.losses.CosineSimilarity()(y_true, y_pred)
    hinge = tf.keras.losses.Hinge()(y_true, y_pred)
    squared_hinge = tf.keras.losses.SquaredHinge()(y_true, y_pred)
    categorical_hinge = tf.keras.losses.CategoricalHinge()(y_true, y_pred)
    msle = tf.keras.losses.MeanSquaredLogarithmicError()(y_true, y_pred)
    mape = tf.keras.losses.MeanAbsolutePercentageError()(y_true, y_pred)
    focal = tf.keras.losses.BinaryFocalCrossentropy(gamma=1.5)(y_true, y_pred)
    cat_focal = tf.keras.losses.CategoricalFocalCrossentropy(alpha=0.5)(y_true, y_pred)
    dice = tf.keras.losses.Dice()(y_true, y_pred)
    tversky = tf.keras.losses.Tversky(alpha=0.3, beta=0.7)(y_true, y_pred)

print(tape.gradient(huber, y_pred))
print(tape.gradient(log_cosh, y_pred))
print(tape.gradient(kld, y_pred))
print(tape.gradient(poisson, y_pred))
print(tape.gradient(cosine, y_pred))
print(tape.gradient(hinge, y_pred))
print(tape.gradient(squared_hinge, y_pred))
print(tape.gradient(categorical_hinge, y_pred))
print(tape.gradient(msle, y_pred))
print(tape.gradient(mape, y_pred))
print(tape.gradient(focal, y_pred))
print(tape.gradient(cat_focal, y_pred))
print(tape.gradient(dice, y_pred))
print(tape.gradient(tversky, y_pred))
