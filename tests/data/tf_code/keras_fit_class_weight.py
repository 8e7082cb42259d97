# values: exact
# note: class_weight becomes per-sample weights from y: sparse labels (model a, fit) and one-hot rows by argmax (model b, train_on_batch); a class missing from the dict weighs 1
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 1 source #0: connected
# expect: call 1 source #1: connected
import numpy as np
import tensorflow as tf

x = np.array([[1.0, 2.0], [-1.0, 0.5], [0.0, -2.0], [2.0, 1.0], [0.5, 0.5]])
labels = np.array([0, 2, 1, 2, 0])
onehot = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])

a = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3)])
a.set_weights([np.array([[0.5, -1.0, 0.25], [-1.5, 0.5, 1.0]]), np.array([0.25, 0.0, -0.25])])
a.compile(optimizer="sgd", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
a.fit(x, labels, class_weight={0: 1.0, 1: 4.0, 2: 0.5}, shuffle=False, verbose=0)

b = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3, activation="softmax")])
b.set_weights([np.array([[0.5, -1.0, 0.25], [-1.5, 0.5, 1.0]]), np.array([0.25, 0.0, -0.25])])
b.compile(optimizer="adam", loss="categorical_crossentropy")
b.train_on_batch(x, onehot, class_weight={2: 3.0, 0: 0.25})
