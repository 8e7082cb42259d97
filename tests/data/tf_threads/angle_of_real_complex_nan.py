import tensorflow as tf

y_true = tf.constant([[0.5], [0.0]])
y_pred = tf.constant([[0.25], [0.0]])
with tf.GradientTape() as tape:
    tape.watch(y_pred)
    angle_diff = tf.math.angle(tf.complex(y_true, 0.0)) - tf.math.angle(tf.complex(y_pred, 0.0))
    loss = tf.reduce_mean(tf.square(angle_diff))
print(tape.gradient(loss, y_pred))
