# values: exact
# note: NumPy builds the data (arange, linspace, eye, to_categorical, float32 casts) as constants; np.concatenate and np.float32 on tensors inside the tape leave it
# expect: call 0 source w: connected
# expect: call 0 source b: connected
# expect: call 0 source scale: leaves_tape line 23
# expect: call 0 source shift: leaves_tape line 24
import numpy as np
import tensorflow as tf

features = np.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(np.float32)
features = np.concatenate([features, np.eye(4, 3, dtype=np.float32)], axis=0)
labels = tf.keras.utils.to_categorical(np.arange(8) % 3, num_classes=3)
mask = np.ones_like(labels[:, 0]) * np.float32(0.5)

w = tf.Variable(np.full((3, 3), 0.1, dtype=np.float32))
b = tf.Variable(np.zeros(3, dtype=np.float32))
scale = tf.Variable(2.0)
shift = tf.Variable([1.0, -1.0])

with tf.GradientTape() as tape:
    logits = tf.matmul(features, w) + b
    per_sample = tf.nn.softmax_cross_entropy_with_logits(labels=tf.cast(labels, tf.float32), logits=logits)
    factor = np.float32(scale * 1.5)
    padded = np.concatenate([shift, shift])
    loss = tf.reduce_mean(per_sample * mask) * factor + tf.reduce_sum(tf.constant(padded))

grads = tape.gradient(loss, [w, b, scale, shift])
