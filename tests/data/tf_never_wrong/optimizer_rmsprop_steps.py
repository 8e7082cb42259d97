# values: exact
# note: refused: RMSprop's update is not computed, so the second gradient (at the updated w)
# note: is not known
import tensorflow as tf

w = tf.Variable([1.0, 2.0])
opt = tf.keras.optimizers.RMSprop(0.1)
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w)
    grads = tape.gradient(loss, [w])
    opt.apply_gradients(zip(grads, [w]))
