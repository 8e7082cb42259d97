# values: exact
# note: a Python list appended to inside a tf.function grows once per trace, not per call
import tensorflow as tf

seen = []


@tf.function
def step(v):
    seen.append(1)
    return v * float(len(seen))


v = tf.Variable(2.0)
for _ in range(3):
    with tf.GradientTape() as tape:
        loss = step(v)
g = tape.gradient(loss, v)
