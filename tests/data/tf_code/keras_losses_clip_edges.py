# values: exact
# note: Keras's clips and ties decide zero gradients: kl_divergence clips y_pred to [1e-7, 1] (0 and 1.5 get none, 1 itself passes), msle takes maximum(y_pred, 1e-7), huber's where at |error| == delta takes the quadratic side, hinge's maximum at a margin of exactly 1 passes the gradient, categorical_hinge's max splits a tie
# expect: call 0 source y_pred: connected
# expect: call 1 source y_pred: connected
# expect: call 2 source y_pred: connected
# expect: call 3 source y_pred: connected
# expect: call 4 source y_pred: connected
# expect: call 5 source y_pred: connected
# expect: call 6 source y_pred: connected
import tensorflow as tf

y_true = tf.constant([[0.25, 0.5, 0.25, 1.0], [0.0, 1.0, 0.0, 1.0]])
y_pred = tf.Variable([[0.0, 1.0, 1.5, -0.5], [0.0, 0.5, 0.5, 1.0]])

with tf.GradientTape(persistent=True) as tape:
    kld = tf.keras.losses.KLDivergence()(y_true, y_pred)
    msle = tf.keras.losses.MeanSquaredLogarithmicError()(y_true, y_pred)
    huber = tf.keras.losses.Huber(delta=0.5)(y_true, y_pred)
    hinge = tf.keras.losses.Hinge()(y_true, y_pred)
    cat_hinge = tf.keras.losses.CategoricalHinge()(y_true, y_pred)
    focal = tf.keras.losses.BinaryFocalCrossentropy(apply_class_balancing=True)(y_true, y_pred)
    cosine = tf.keras.losses.CosineSimilarity(axis=0)(y_true, y_pred)

print(tape.gradient(kld, y_pred))
print(tape.gradient(msle, y_pred))
print(tape.gradient(huber, y_pred))
print(tape.gradient(hinge, y_pred))
print(tape.gradient(cat_hinge, y_pred))
print(tape.gradient(focal, y_pred))
print(tape.gradient(cosine, y_pred))
