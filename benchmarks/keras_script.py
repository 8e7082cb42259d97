"""A Keras training script of the kind the Keras guides teach, for gradcli's benchmarks.

gradcli reads this file (it never runs it): a custom layer with build() and add_weight, a
residual block made of layers, a subclassed model with a list of blocks and two heads, a
loss function, a regularisation helper, a train step under @tf.function with a
GradientTape, a frozen-layer experiment, and a second tape over the heads. About 300 lines,
as issue 18's benchmark asks.
"""

import numpy as np
import tensorflow as tf

# ---------------------------------------------------------------------------------------------
# configuration
# ---------------------------------------------------------------------------------------------
BATCH = 32
FEATURES = 24
HIDDEN = 48
BLOCKS = 4
CLASSES = 10
WEIGHT_DECAY = 1e-4
LABEL_SMOOTHING = 0.0
SEED = 1234

tf.random.set_seed(SEED)
np.random.seed(SEED)
# fixed initial weights and data, so that gradcli's reader computes TensorFlow's numbers
# (it draws no random numbers of its own for a claim: numbers drawn at random are refused)
KERNEL_INIT = tf.keras.initializers.Constant(0.05)


# ---------------------------------------------------------------------------------------------
# layers
# ---------------------------------------------------------------------------------------------
class ScaleShift(tf.keras.layers.Layer):
    """A learned per-feature scale and shift, made in build() with add_weight."""

    def __init__(self, init_scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.init_scale = init_scale

    def build(self, input_shape):
        features = input_shape[-1]
        self.scale = self.add_weight(
            name="scale",
            shape=(features,),
            initializer=tf.keras.initializers.Constant(self.init_scale),
            trainable=True,
        )
        self.shift = self.add_weight(
            name="shift",
            shape=(features,),
            initializer="zeros",
            trainable=True,
        )

    def call(self, inputs):
        return inputs * self.scale + self.shift


class GatedUnit(tf.keras.layers.Layer):
    """A gated linear unit: a Dense for the value, a Dense for the gate."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.value = tf.keras.layers.Dense(units, kernel_initializer=KERNEL_INIT)
        self.gate = tf.keras.layers.Dense(
            units, activation="sigmoid", kernel_initializer=KERNEL_INIT
        )

    def call(self, inputs):
        return self.value(inputs) * self.gate(inputs)


class ResidualBlock(tf.keras.layers.Layer):
    """Two Dense layers with a residual connection and a learned scale."""

    def __init__(self, width, activation="relu", **kwargs):
        super().__init__(**kwargs)
        self.width = width
        self.first = tf.keras.layers.Dense(
            width, activation=activation, kernel_initializer=KERNEL_INIT
        )
        self.second = tf.keras.layers.Dense(width, kernel_initializer=KERNEL_INIT)
        self.norm = ScaleShift(init_scale=0.5)

    def call(self, inputs, training=None):
        h = self.first(inputs)
        h = self.second(h)
        h = self.norm(h)
        return tf.nn.relu(inputs + h)


# ---------------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------------
class Classifier(tf.keras.Model):
    """Stem, a list of residual blocks, a gated unit, a class head and an auxiliary head."""

    def __init__(self, hidden, blocks, classes, **kwargs):
        super().__init__(**kwargs)
        self.stem = tf.keras.layers.Dense(hidden, activation="relu", kernel_initializer=KERNEL_INIT)
        self.blocks = [ResidualBlock(hidden) for _ in range(blocks)]
        self.gated = GatedUnit(hidden)
        self.head = tf.keras.layers.Dense(classes, kernel_initializer=KERNEL_INIT)
        self.aux_head = tf.keras.layers.Dense(1, kernel_initializer=KERNEL_INIT)

    def features(self, inputs, training=None):
        h = self.stem(inputs)
        for block in self.blocks:
            h = block(h, training=training)
        return self.gated(h)

    def call(self, inputs, training=None):
        h = self.features(inputs, training=training)
        return self.head(h), self.aux_head(h)


# ---------------------------------------------------------------------------------------------
# losses and metrics
# ---------------------------------------------------------------------------------------------
def classification_loss(labels, logits):
    """Mean sparse softmax cross-entropy over the batch."""
    per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return tf.reduce_mean(per_example)


def auxiliary_loss(targets, predictions):
    """Mean squared error of the auxiliary regression head."""
    return tf.reduce_mean(tf.square(predictions - targets))


def l2_penalty(variables, decay=WEIGHT_DECAY):
    """Weight decay on every kernel (biases and scales are left alone)."""
    kernels = [v for v in variables if "kernel" in v.name]
    return decay * tf.add_n([tf.reduce_sum(tf.square(k)) for k in kernels])


def accuracy(labels, logits):
    """The fraction of the batch classified correctly (not differentiable)."""
    predicted = tf.argmax(logits, axis=-1, output_type=tf.int32)
    return tf.reduce_mean(tf.cast(tf.equal(predicted, labels), tf.float32))


def total_loss(model, inputs, labels, targets, aux_weight=0.1):
    """The training objective: classification + auxiliary + weight decay."""
    logits, aux = model(inputs, training=True)
    main = classification_loss(labels, logits)
    extra = auxiliary_loss(targets, aux)
    decay = l2_penalty(model.trainable_variables)
    return main + aux_weight * extra + decay, logits


# ---------------------------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------------------------
def make_batch(batch, features, classes):
    """A synthetic batch: inputs, integer labels and a regression target."""
    inputs = tf.reshape(
        tf.sin(tf.range(batch * features, dtype=tf.float32) * 0.37), (batch, features)
    )
    labels = tf.constant([(7 * i + 3) % classes for i in range(batch)], dtype=tf.int32)
    targets = tf.reshape(tf.cos(tf.range(batch, dtype=tf.float32) * 0.11), (batch, 1))
    return inputs, labels, targets


inputs, labels, targets = make_batch(BATCH, FEATURES, CLASSES)

model = Classifier(HIDDEN, BLOCKS, CLASSES)
optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)


# ---------------------------------------------------------------------------------------------
# one training step
# ---------------------------------------------------------------------------------------------
@tf.function
def train_step(inputs, labels, targets):
    with tf.GradientTape() as tape:
        loss, logits = total_loss(model, inputs, labels, targets)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss, accuracy(labels, logits), grads


loss, acc, grads = train_step(inputs, labels, targets)
print("loss", float(loss), "accuracy", float(acc))
print("gradient norms", [float(tf.norm(g)) for g in grads if g is not None])


# ---------------------------------------------------------------------------------------------
# an experiment: freeze the stem and look at what still learns
# ---------------------------------------------------------------------------------------------
model.stem.trainable = False

with tf.GradientTape() as tape:
    logits, aux = model(inputs, training=True)
    frozen_loss = classification_loss(labels, logits)

frozen_grads = tape.gradient(frozen_loss, model.trainable_variables)
print("trainable after freezing", len(model.trainable_variables))

model.stem.trainable = True


# ---------------------------------------------------------------------------------------------
# the auxiliary head alone: which variables does it reach?
# ---------------------------------------------------------------------------------------------
with tf.GradientTape(persistent=True) as tape:
    logits, aux = model(inputs, training=False)
    aux_only = auxiliary_loss(targets, aux)
    class_only = classification_loss(labels, logits)

aux_grads = tape.gradient(aux_only, model.aux_head.trainable_variables)
head_grads = tape.gradient(aux_only, model.head.trainable_variables)
class_grads = tape.gradient(class_only, model.head.trainable_variables)
del tape

print("aux head", [g is None for g in aux_grads])
print("class head from the aux loss", [g is None for g in head_grads])
print("class head", [g is None for g in class_grads])


# ---------------------------------------------------------------------------------------------
# a per-block look at the residual scales
# ---------------------------------------------------------------------------------------------
def block_scales(model):
    """Each block's ScaleShift scale variable."""
    return [block.norm.scale for block in model.blocks]


with tf.GradientTape() as tape:
    loss, _ = total_loss(model, inputs, labels, targets)

scale_grads = tape.gradient(loss, block_scales(model))
for i, g in enumerate(scale_grads):
    print("block", i, "scale gradient norm", float(tf.norm(g)))


# ---------------------------------------------------------------------------------------------
# the input gradient (saliency)
# ---------------------------------------------------------------------------------------------
x = tf.Variable(inputs)
with tf.GradientTape() as tape:
    logits, _ = model(x, training=False)
    top = tf.reduce_sum(tf.reduce_max(logits, axis=-1))

saliency = tape.gradient(top, x)
print("saliency", saliency.shape)


# ---------------------------------------------------------------------------------------------
# a second step with a smaller learning rate
# ---------------------------------------------------------------------------------------------
optimizer.learning_rate = 5e-4
loss, acc, grads = train_step(inputs, labels, targets)
print("second step loss", float(loss))


# ---------------------------------------------------------------------------------------------
# the same model trained the Keras way: compile + fit with a loss function of the file's own
# ---------------------------------------------------------------------------------------------
def fit_loss(y_true, y_pred):
    """The class head's loss as compile takes it (per sample, Keras averages it). Keras 3
    hands y_true over in y_pred's dtype (float32): the labels are cast back to integers."""
    labels = tf.cast(y_true, tf.int32)
    return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=y_pred)


class HeadOnly(tf.keras.Model):
    """The classifier's class logits alone, for fit (one output, one loss)."""

    def __init__(self, body, **kwargs):
        super().__init__(**kwargs)
        self.body = body

    def call(self, inputs, training=None):
        logits, _ = self.body(inputs, training=training)
        return logits


trainer = HeadOnly(model)
trainer.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=1e-2), loss=fit_loss)
trainer.fit(inputs, labels, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
print("fitted")


# ---------------------------------------------------------------------------------------------
# a summary of the model's variables
# ---------------------------------------------------------------------------------------------
def describe(model):
    """Print every variable's name and shape."""
    for v in model.trainable_variables:
        print(v.name, v.shape)
    for v in model.non_trainable_variables:
        print("(frozen)", v.name, v.shape)


describe(model)
print("layers", len(model.layers))
print("done")
