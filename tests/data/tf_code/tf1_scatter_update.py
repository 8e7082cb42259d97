# values: exact
# note: scatter_update and the variables' scatter methods are assignments (no gradient through them; later reads see the new value); tensor_scatter_nd_update/_add/_sub are ops with gradients (an overwritten element gets none)
# expect: call 0 source v: connected
# expect: call 0 source u: connected
import tensorflow as tf

v = tf.Variable([1.0, 2.0, 3.0, 4.0])
u = tf.Variable([10.0, 20.0])

tf.compat.v1.scatter_update(v, [0, 2], [5.0, 6.0])
v.scatter_nd_update([[1]], [7.0])
v.scatter_update(tf.IndexedSlices(tf.constant([8.0]), tf.constant([3])))
tf.compat.v1.scatter_add(v, [3], [0.5])

with tf.GradientTape() as tape:
    t = tf.tensor_scatter_nd_update(v * 2.0, [[1], [3]], u * u)
    t = tf.tensor_scatter_nd_add(t, [[0], [0]], u)
    t = tf.tensor_scatter_nd_sub(t, [[2], [1]], u * v[0])
    loss = tf.reduce_sum(t * t)

print(v.numpy(), tape.gradient(loss, [v, u]))
