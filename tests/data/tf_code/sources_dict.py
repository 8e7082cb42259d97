# values: exact
# note: TF returns a dict; the flattened order is sorted by key (b, w), not insertion order
# expect: call 0 source params["w"]: connected
# expect: call 0 source params["b"]: connected
import tensorflow as tf

params = {"w": tf.Variable([1.0, -2.0]), "b": tf.Variable(0.5)}
x = tf.constant([3.0, 4.0])

with tf.GradientTape() as tape:
    y = tf.reduce_sum(params["w"] * x) + params["b"]
    loss = y * y

grads = tape.gradient(loss, {"w": params["w"], "b": params["b"]})
print(grads["w"], grads["b"])
