import tensorflow as tf

a = tf.zeros([3], dtype=tf.float32)
with tf.GradientTape() as tape:
    tape.watch(a)
    b = tf.clip_by_norm(a, 1.0)
c = tape.gradient(b, a)
print(c)
