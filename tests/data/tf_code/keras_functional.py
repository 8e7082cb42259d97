# values: exact
# note: the functional API: Input, layers called on symbolic tensors, Model(inputs, outputs) with two outputs and a layer shared by both; model.layers and the variable order are Keras 3's map_graph order (by depth from the outputs), not the order of the calls
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
# expect: call 0 source #4: no_path line 27
# expect: call 0 source #5: no_path line 27
import numpy as np
import tensorflow as tf

inp = tf.keras.Input(shape=(3,))
encoder = tf.keras.layers.Dense(2, activation="relu", name="encoder")
side = tf.keras.layers.Dense(1, name="side")
side_out = side(inp)
hidden = encoder(inp)
main_out = tf.keras.layers.Dense(1, name="main")(hidden)
model = tf.keras.Model(inputs=inp, outputs=[main_out, side_out])
model.set_weights([
    np.array([[1.0, -1.0], [0.5, 2.0], [-1.0, 0.5]]), np.array([0.1, -0.2]),
    np.array([[2.0], [-3.0]]), np.array([0.5]),
    np.array([[1.0], [1.0], [1.0]]), np.array([0.0]),
])

x = tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
with tf.GradientTape() as tape:
    main, other = model(x)
    loss = tf.reduce_mean(tf.square(main - 1.0))

print([layer.name for layer in model.layers])  # input_layer, encoder, main, side
print([v.path for v in model.trainable_variables])
print(tape.gradient(loss, model.trainable_variables))
