# values: exact
# note: TF1 graph mode: tf.compat.v1.losses.* (weights, reductions, label smoothing) as TensorFlow composes them, each differentiated by compute_gradients, all fetched in one Session.run
# expect: call 0 source w: connected
# expect: call 2 source w: connected
# expect: call 4 source #0: connected
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
V1 = tf.compat.v1

x = V1.placeholder(tf.float32, shape=[3, 2])
onehot = V1.placeholder(tf.float32, shape=[3, 3])
ids = V1.placeholder(tf.int32, shape=[3, 1])
w = tf.Variable([[0.5, -1.0, 0.25], [1.5, 0.5, -0.75]])
logits = tf.matmul(x, w)

mse = V1.losses.mean_squared_error(onehot, logits, weights=[[1.0], [0.0], [2.0]])
mae = V1.losses.absolute_difference(onehot, logits, reduction=V1.losses.Reduction.SUM)
xent = V1.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1)
sparse = V1.losses.sparse_softmax_cross_entropy(ids, logits, weights=0.5)
sigmoid = V1.losses.sigmoid_cross_entropy(onehot, logits, reduction=V1.losses.Reduction.MEAN)

opt = V1.train.GradientDescentOptimizer(0.1)
grads = [opt.compute_gradients(loss, var_list=[w])[0][0] for loss in (mse, mae, xent)]
grads.append(opt.compute_gradients(sparse, var_list=[w])[0][0])
train_op = opt.minimize(sigmoid)

feed = {x: [[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0]], onehot: [[0, 0, 1], [1, 0, 0], [0, 1, 0]],
        ids: [[2], [0], [1]]}
with V1.Session() as sess:
    sess.run(V1.global_variables_initializer())
    values = sess.run(grads + [train_op, mse, mae, xent, sparse, sigmoid], feed_dict=feed)
    print(values[5:])
