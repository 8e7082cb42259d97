import tensorflow as tf

tensor = tf.constant(0.0)
with tf.GradientTape() as tape:
    tape.watch(tensor)
    root = tf.sqrt(tensor)
    loss = tf.square(root)
grad = tape.gradient(loss, tensor)
print(grad)
