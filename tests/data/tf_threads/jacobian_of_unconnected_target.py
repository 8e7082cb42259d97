import tensorflow as tf

x = tf.Variable([1.0, 2.0, 3.0])
w = tf.Variable([0.5, -1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    y = x * x
jac_x = tape.jacobian(y, x)
jac_w = tape.jacobian(y, w)
print(jac_x, jac_w)
