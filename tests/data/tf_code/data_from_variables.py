# values: exact
# note: a dataset made from a variable, and a map function reading another: its elements are new tensors, so neither variable gets a gradient through them; offsets is read when the dataset is made (line 11, before the tape), scale inside the map function, whose dataset op has no gradient
# expect: call 0 source w: connected
# expect: call 0 source scale: non_differentiable line 11
# expect: call 0 source offsets: outside_tape line 11
import tensorflow as tf

w = tf.Variable(2.0)
scale = tf.Variable(3.0)
offsets = tf.Variable([0.5, -1.0])
ds = tf.data.Dataset.from_tensor_slices(offsets).map(lambda v: v * scale)

for v in ds.take(1):
    with tf.GradientTape() as tape:
        loss = v * w + w**2
    print(tape.gradient(loss, [w, scale, offsets]))
