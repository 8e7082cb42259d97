import tensorflow as tf

v = tf.Variable(1.0)
x = tf.convert_to_tensor(2.0)
with tf.GradientTape() as t:
    t.watch(x)
    v.assign_add(x)
    loss = v * v
print(t.gradient(loss, x))
