# values: exact
# note: a @tf.function train step called on each batch of a dict dataset: traced once (same shapes), one recorded call (autograph=False: the reference tool finds the traced line)
# expect: call 0 source w: connected
import numpy as np
import tensorflow as tf

features = {"a": np.array([1.0, 2.0, 3.0, 4.0]), "b": np.array([0.5, 0.5, -1.0, 2.0])}
ds = tf.data.Dataset.from_tensors(features).unbatch().batch(2, drop_remainder=True).cache()
w = tf.Variable(0.75, dtype=tf.float64)


@tf.function(autograph=False)
def train_step(batch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(batch["a"] * w - batch["b"]) ** 2
    return tape.gradient(loss, w)


for batch in ds:
    print(train_step(batch))
