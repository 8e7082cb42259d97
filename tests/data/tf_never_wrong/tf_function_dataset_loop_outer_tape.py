# values: exact
# note: refused: inside @tf.function AutoGraph runs the loop over the dataset as one dataset
# note: op, which the tape around it does not differentiate: TensorFlow gives None
import tensorflow as tf

w = tf.Variable(2.0)
ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])


@tf.function
def total_grad():
    with tf.GradientTape() as tape:
        loss = tf.constant(0.0)
        for x in ds:
            loss += w * x
    return tape.gradient(loss, w)


g = total_grad()
