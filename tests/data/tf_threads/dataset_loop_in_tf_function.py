import tensorflow as tf

dataset = tf.data.Dataset.from_tensor_slices([2.0, 3.0])


def fun(x):
    for data in dataset:
        x = x * data
    return x


decorated_fun = tf.function(fun)

a = tf.constant(1.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(a)
    b = fun(a)
    c = decorated_fun(a)
print(tape.gradient(b, a))
print(tape.gradient(c, a))
