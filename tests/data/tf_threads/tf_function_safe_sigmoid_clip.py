import tensorflow as tf

x = tf.constant([[20.0, -30.0]])
W = tf.Variable([[1.0], [1.0]])
y = tf.constant([[1.0]])


@tf.function
def safe_sigmoid(logits):
    clipped = tf.clip_by_value(logits, -10.0, 10.0)
    return tf.sigmoid(clipped)


with tf.GradientTape() as tape:
    logits_hat = tf.matmul(x, W) * 2.0
    p_hat = safe_sigmoid(logits_hat)
    loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(y, p_hat))
print(tape.gradient(loss, W))
