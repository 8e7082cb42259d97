# values: exact
# note: with autograph=False nothing converts int() of a graph tensor: TensorFlow raises TypeError; gradcli refuses it, naming --run
import tensorflow as tf

x = tf.Variable(3.0)


@tf.function(autograph=False)
def f(v):
    return v * int(v)


with tf.GradientTape() as tape:
    y = f(x * 1.0)
print(tape.gradient(y, x))
