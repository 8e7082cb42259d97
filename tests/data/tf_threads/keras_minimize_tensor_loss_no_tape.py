# https://github.com/tensorflow/tensorflow/issues/51622
import tensorflow as tf

x_train = [1.0, 2.0, 3.0]
y_train = [1.0, 2.0, 3.0]
W = tf.Variable([0.5], name="weight")
b = tf.Variable([0.1], name="bias")


@tf.function
def cost():
    y_model = W * x_train + b
    return tf.reduce_mean(tf.square(y_train - y_model))


cost_value = cost()
train = tf.keras.optimizers.Adam().minimize(cost_value, var_list=[W, b])
print(W, b)
