# values: exact
# note: TF1 graph mode: minimize without var_list takes tf.compat.v1.trainable_variables(), every trainable variable made so far in creation order (get_variable's in their scopes and tf.Variable's alike; not the trainable=False one)
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: no_path
# expect: call 0 source #3: connected
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

inputs = tf.compat.v1.placeholder(tf.float32, shape=[None, 2], name="inputs")
targets = tf.compat.v1.placeholder(tf.float32, shape=[None], name="targets")


def layer(h, units, name):
    with tf.compat.v1.variable_scope(name):
        kernel = tf.compat.v1.get_variable(
            "kernel", shape=[h.shape[-1], units], initializer=tf.compat.v1.constant_initializer(0.5)
        )
        bias = tf.compat.v1.get_variable("bias", shape=[units], initializer=tf.zeros_initializer())
        return tf.nn.relu(tf.matmul(h, kernel) + bias)


hidden = layer(inputs, 3, "hidden")
with tf.compat.v1.variable_scope("extra"):
    spare = tf.Variable(tf.ones([3]), name="spare")  # trainable, never used
    frozen = tf.Variable(2.0, trainable=False)
out_w = tf.Variable([[1.0], [-1.0], [0.5]], name="out_w")
prediction = tf.squeeze(tf.matmul(hidden, out_w), axis=1) * frozen
loss = tf.reduce_mean((prediction - targets) ** 2)

print([v.name for v in tf.compat.v1.trainable_variables()])
train_op = tf.compat.v1.train.RMSPropOptimizer(0.01).minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    _, loss_value = sess.run([train_op, loss], feed_dict={inputs: [[1.0, 2.0], [-1.0, 0.5]], targets: [1.0, 0.0]})
    print(loss_value)
