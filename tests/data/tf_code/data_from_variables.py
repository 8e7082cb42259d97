# values: exact
# note: a dataset made from a variable, and a map function reading another: its elements are new tensors, so neither variable gets a gradient through them
# expect: call 0 source w: connected
# expect: call 0 source scale: no_path line 13
# expect: call 0 source offsets: no_path line 13
import tensorflow as tf

w = tf.Variable(2.0)
scale = tf.Variable(3.0)
offsets = tf.Variable([0.5, -1.0])
ds = tf.data.Dataset.from_tensor_slices(offsets).map(lambda v: v * scale)

for v in ds.take(1):
    with tf.GradientTape() as tape:
        loss = v * w + w**2
    print(tape.gradient(loss, [w, scale, offsets]))
