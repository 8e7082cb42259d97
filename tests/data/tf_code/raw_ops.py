# values: exact
# note: tf.raw_ops.X takes keyword arguments only; each is the registry op its tf.* function emits (Sum's axis is a tensor there, keep_dims its flag)
# expect: call 0 source w: connected
# expect: call 0 source x: connected
import tensorflow as tf

w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], dtype=tf.float64)
x = tf.Variable([[0.25, 1.0]], dtype=tf.float64)

with tf.GradientTape() as tape:
    h = tf.raw_ops.MatMul(a=x, b=w, transpose_a=False)
    h = tf.raw_ops.AddV2(x=h, y=tf.constant([[0.1, -0.2]], dtype=tf.float64))
    r = tf.raw_ops.Relu(features=h)
    p = tf.raw_ops.Softmax(logits=tf.raw_ops.ConcatV2(values=[r, h], axis=1))
    s = tf.raw_ops.Sum(input=p * tf.raw_ops.Cast(x=tf.constant([1, 2, 3, 4]), DstT=tf.float64), axis=[1], keep_dims=True)
    g = tf.raw_ops.GatherV2(params=w, indices=[1, 1], axis=0)
    sign, logdet = tf.raw_ops.LogMatrixDeterminant(input=w)
    loss = tf.raw_ops.Mean(input=s, axis=0) + tf.reduce_sum(g * g) + logdet * sign

print(tape.gradient(loss, [w, x]))
