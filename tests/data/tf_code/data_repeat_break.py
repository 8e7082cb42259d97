# values: exact
# note: an endless repeat() ends by a break in the loop: one gradient call per iteration that ran
# expect: call 0 source w: connected
# expect: call 2 source w: connected
import tensorflow as tf

w = tf.Variable(2.0)
ds = tf.data.Dataset.from_tensor_slices([1.0, -3.0]).repeat()

for step, v in enumerate(ds):
    with tf.GradientTape() as tape:
        loss = tf.exp(v * w * 0.1)
    print(tape.gradient(loss, w))
    if step == 2:
        break
