import tensorflow as tf

v = tf.Variable(1.0, name="v")
v_add_1 = v + 1.0


def loss():
    return 2.0 * v_add_1


with tf.GradientTape() as tape:
    value = loss()
print(value, tape.gradient(value, v))
