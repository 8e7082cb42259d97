# values: exact
# note: keras.metrics accuracy functions in a loss: a comparison (binary_accuracy) and argmax (categorical_accuracy) give no gradient; the mse part of a loss weighted by accuracy keeps its own
# expect: call 0 source p: non_differentiable line 13
# expect: call 1 source p: non_differentiable line 14
# expect: call 2 source p: non_differentiable line 14
import keras
import tensorflow as tf

y = tf.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
p = tf.Variable([[0.25, 0.5, 0.75], [0.75, 0.0, 0.125]])
with tf.GradientTape(persistent=True) as tape:
    q = p * 1.0
    acc = keras.metrics.binary_accuracy(y, q)
    cat = tf.keras.metrics.categorical_accuracy(y, q)
    loss = keras.ops.mean(keras.losses.mean_squared_error(y, p) * (1.0 - cat))
print(acc, cat)
print(tape.gradient(acc, p))
print(tape.gradient(cat, p))
print(tape.gradient(loss, p))
