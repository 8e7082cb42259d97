# values: exact
# note: second derivatives through the new layers (nested tapes): ELU(alpha=0.5), Softmax, Dot(normalize=True), PReLU, bilinear UpSampling2D, whose gradient (ResizeBilinearGrad) TensorFlow makes NotDifferentiable: the second derivative only through it is None (gradcli: non_differentiable at the inner gradient's line)
# expect: call 0 source x: connected
# expect: call 1 source x: connected
# expect: call 3 source x: non_differentiable line 34
import tensorflow as tf

x = tf.constant([[0.5, -1.0, 2.0, -0.25], [1.5, 0.75, -2.0, 1.0]])
elu = tf.keras.layers.ELU(alpha=0.5)
soft = tf.keras.layers.Softmax()
dot = tf.keras.layers.Dot(axes=1, normalize=True)
prelu = tf.keras.layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25))
up = tf.keras.layers.UpSampling2D(interpolation="bilinear")

with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        h = elu(x) * soft(x)
        y = tf.reduce_sum(dot([h, x])) + tf.reduce_sum(prelu(x) * h)
        img = up(tf.reshape(h, (1, 2, 2, 2)))
        y = y + tf.reduce_sum(img * img)
    g = inner.gradient(y, x)
    z = tf.reduce_sum(g * g)
print(g)
print(outer.gradient(z, x))

# TensorFlow's ResizeBilinearGrad is NotDifferentiable: no second derivative through it
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = tf.reduce_sum(tf.square(up(tf.reshape(x, (1, 2, 2, 2)))))
    g = inner.gradient(y, x)
    z = tf.reduce_sum(g * g)
print(outer.gradient(z, x))
