"""The reader's Keras losses, keras.ops and keras.backend: conventions derived by hand from
Keras 3.15.1's own code (keras/src/losses/losses.py, the TensorFlow backend, the legacy
backend) and TensorFlow's error messages as Keras 3.15.1 on TensorFlow 2.21 prints them.
Gradient values of whole programs are compared with TensorFlow in test_tfcode_reference.py
(the keras_losses_* snippets)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from helpers import interpret_tf

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.values import Opaque


def grads(source: str) -> list:
    """Each gradient call's gradients, as numpy arrays (None kept)."""
    source = "import keras\nimport numpy as np\nimport tensorflow as tf\n" + textwrap.dedent(source)
    program = read_program(source.encode(), "t.py")
    out = []
    for call in program.calls:
        values = list(call.evaluation.gradients.values())
        out.append([None if v is None else np.asarray(v) for v in values])
    return out


def error(source: str) -> GradcliError:
    source = "import keras\nimport numpy as np\nimport tensorflow as tf\n" + textwrap.dedent(source)
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "t.py")
    return exc.value


def test_hinge_converts_only_binary_labels():
    # labels [0, 1] become [-1, 1]: d/dp mean(max(1 - y p, 0)) = -y / 2 = [0.5, -0.5];
    # labels [0, 2] stay: 1 - 0 * p = 1 (no gradient), 1 - 2 * 0.5 = 0, a tie at maximum's
    # 0, where TensorFlow's Maximum sends the gradient to its first input: -2 / 2 = -1
    (binary,), (other,) = grads("""
        p = tf.Variable([[0.5, 0.5]])
        with tf.GradientTape(persistent=True) as tape:
            a = keras.losses.hinge(tf.constant([[0.0, 1.0]]), p)
            b = keras.losses.hinge(tf.constant([[0.0, 2.0]]), p)
        tape.gradient(a, p)
        tape.gradient(b, p)
    """)
    assert binary.tolist() == [[0.5, -0.5]]
    assert other.tolist() == [[0.0, -1.0]]


def test_reduction_enum_and_auto():
    # 'sum' of mean((p - t)^2) over 2 values: d/dp = (p - t) = [1, 2]
    ((g,),) = grads("""
        p = tf.Variable([[1.0, 2.0]])
        mse = tf.keras.losses.MeanSquaredError(reduction=tf.keras.losses.Reduction.SUM)
        with tf.GradientTape() as tape:
            loss = mse(tf.zeros((1, 2)), p)
        tape.gradient(loss, p)
    """)
    assert g.tolist() == [[1.0, 2.0]]
    exc = error("loss = tf.keras.losses.Huber(reduction=tf.keras.losses.Reduction.AUTO)\n")
    # Keras 3's ValueError lists a set (its order varies): refused, naming --run
    assert exc.pos.line == 4 and "reduction='auto'" in exc.message and "--run" in exc.message


@pytest.mark.parametrize(("code", "message"), [
    ("keras.losses.mse(y, y)", "AttributeError: module 'keras.losses' has no attribute 'mse'"),
    ("keras.metrics.dice(y, y)", "AttributeError: module 'keras.metrics' has no attribute 'dice'"),
    ("keras.backend.mean(y)", "AttributeError: module 'keras.backend' has no attribute 'mean'"),
])  # fmt: skip
def test_names_keras_3_lacks_are_tensorflows_attribute_error(code, message):
    exc = error(f"y = tf.ones((2, 2))\nz = {code}\n")
    assert exc.pos.line == 5
    assert exc.message.startswith(message)


def test_tf_keras_keeps_the_legacy_names():
    # tf.keras.losses.mse / tf.keras.metrics.kld / tf.keras.backend.mean all exist: d/dp of
    # sum(mean((p - 0)^2, -1)) = p for two values per row
    ((g,),) = grads("""
        p = tf.Variable([[1.0, 3.0]])
        with tf.GradientTape() as tape:
            loss = tf.keras.backend.sum(tf.keras.losses.mse(tf.zeros((1, 2)), p))
            k = tf.keras.metrics.kld(tf.ones((1, 2)), tf.ones((1, 2)))
        tape.gradient(loss, p)
    """)
    assert g.tolist() == [[1.0, 3.0]]


def test_metrics_are_read_and_ignored():
    it = interpret_tf("""
        import tensorflow as tf
        m = tf.keras.metrics.Mean(name="loss")
        m.update_state(3.0)
        r = m.result()
        m.reset_state()
        auc = tf.keras.metrics.AUC(num_thresholds=50)
    """)
    # the metric's value is not computed: opaque (unknown beyond line N in a gradient)
    assert isinstance(it.globals.vars["r"], Opaque) and it.globals.vars["r"].line == 5


def test_keras_ops_names_it_does_not_read_are_refused_at_their_line():
    exc = error('x = tf.ones((2,))\ny = keras.ops.einsum("i->", x)\n')
    assert exc.pos.line == 5 and "keras.ops.einsum" in exc.message


def test_keras_ops_dtypes_and_argmax_flattening():
    it = interpret_tf("""
        import keras
        import numpy as np
        import tensorflow as tf
        from keras import ops
        x64 = tf.constant(np.array([[1.0, 5.0], [7.0, 2.0]]))
        m64 = ops.mean(x64 * 2.0)
        m32 = ops.mean([1.0, 2.0])
        a = ops.argmax(x64)
        b = ops.argmax(x64, axis=0)
        s = ops.shape(x64)
        e = keras.backend.epsilon()
        K_sqrt = tf.keras.backend.sqrt(tf.constant([-4.0, 4.0]))
        c = tf.keras.backend.clip(tf.constant([0.0, 2.0]), 1.0, 0.5)
    """)
    g = it.g

    def value(name):
        v = it.globals.vars[name]
        return it.value(v.id), g[v.id].dtype

    assert value("m64") == (7.5, "float64")
    assert value("m32")[1] == "float32"
    assert value("a")[0] == 2 and value("a")[1] == "int32"  # flattened: 7.0 at index 2
    assert value("b")[0].tolist() == [1, 0]
    assert it.globals.vars["s"] == (2, 2)
    assert it.globals.vars["e"] == 1e-7
    assert value("K_sqrt")[0].tolist() == [0.0, 2.0]  # sqrt(maximum(x, 0))
    assert value("c")[0].tolist() == [1.0, 1.0]  # max_value < min_value: max = min


def test_focal_crossentropy_uses_the_sigmoid_layers_logits():
    # Dense(activation="sigmoid") keeps its logits: the bce part of binary focal crossentropy
    # is sigmoid_cross_entropy(z), finite where the clipped form would saturate; with the
    # kernel 20 and x = 1, sigmoid(20) rounds to 1 in float32 and y_true = 0: the focal factor
    # p_t = 0 gives (1 - 0)^2 * bce, bce = softplus(20) = 20: loss 20; TensorFlow 2.21 gave
    # the gradients [[1.0]] and [1.0] (sigmoid(z) - y_true = 1 through the logits; the focal
    # factor's path through sigmoid(20) has sigmoid' = 0 in float32)
    ((k, b),) = grads("""
        model = tf.keras.Sequential([tf.keras.Input(shape=(1,)),
                                     tf.keras.layers.Dense(1, activation="sigmoid")])
        model.set_weights([np.array([[20.0]]), np.array([0.0])])
        loss_fn = tf.keras.losses.BinaryFocalCrossentropy()
        with tf.GradientTape() as tape:
            loss = loss_fn(tf.zeros((1, 1)), model(tf.ones((1, 1))))
        tape.gradient(loss, model.trainable_variables)
    """)
    assert k.tolist() == [[1.0]] and b.tolist() == [1.0]


def test_mean_with_sample_weight_divides_by_the_weights_sum():
    # Keras 3's reduce_values: sum(values * w) / sum(w); per-sample mse of p against zeros
    # has d/dp = p (2 p / 2 values), weighted 1/4 and 3/4
    ((g,),) = grads("""
        p = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        mse = keras.losses.MeanSquaredError(reduction="mean_with_sample_weight")
        with tf.GradientTape() as tape:
            loss = mse(tf.zeros((2, 2)), p, sample_weight=tf.constant([1.0, 3.0]))
        tape.gradient(loss, p)
    """)
    assert g.tolist() == [[0.25, 0.5], [2.25, 3.0]]


def test_traced_fit_takes_the_logits_of_any_sigmoid_op():
    # TensorFlow 2.21 printed these gradients of the traced first step (a tf.numpy_function
    # capturing them inside train_step): Keras's binary crossentropy finds the Sigmoid op
    # (output.op.type) and computes from its input, so the saturated first sample (logit 20)
    # still passes sigmoid(20) - 0 = 1 per unit (run eagerly, the clipped form gives 0.156)
    ((k, b),) = grads("""
        class M(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.d = tf.keras.layers.Dense(2, kernel_initializer="ones")
            def call(self, x):
                return tf.nn.sigmoid(self.d(x))
        model = M()
        model.compile(optimizer="sgd", loss="binary_crossentropy")
        model.fit(np.array([[10.0, 10.0], [-1.0, 0.5]]), np.array([[0.0, 1.0], [1.0, 0.0]]))
    """)
    want_k = [[2.6556148529052734, -0.09438516944646835], [2.4221925735473633, 0.04719258472323418]]
    want_b = [0.09438517689704895, 0.09438516944646835]
    assert np.allclose(k, want_k, rtol=1e-6, atol=0) and np.allclose(b, want_b, rtol=1e-6, atol=0)


def test_keras_ops_compute_integer_inputs_in_float32():
    # keras.ops.mean/sqrt of int32 are float32 (0.75, sqrt(3)); keras.ops.sum of bool is int32
    # (3): d/dp = 2 (p - y) / 4 * 0.75 + sqrt(3)
    ((g,),) = grads("""
        from keras import ops
        y = tf.constant([[0.0, 1.0], [1.0, 1.0]])
        p = tf.Variable([[0.5, 2.0], [1.0, -1.0]])
        with tf.GradientTape() as tape:
            frac = ops.mean(ops.cast(y > 0, "int32"))
            count = ops.sum(y > 0)
            loss = ops.mean(ops.square(p - y)) * frac + ops.sqrt(count) * ops.sum(p)
        tape.gradient(loss, p)
    """)
    p, y = np.array([[0.5, 2.0], [1.0, -1.0]]), np.array([[0.0, 1.0], [1.0, 1.0]])
    want = (2 * (p - y) / 4 * 0.75 + np.sqrt(3)).astype(np.float32)
    assert np.allclose(g, want, rtol=1e-6, atol=0)


def test_a_gradient_of_a_metric_objects_value_is_refused():
    # keras#19150: a keras.metrics object called as the loss; TensorFlow reads its value back
    # from the metric's state variables (no gradient: None), which the reader does not model
    exc = error(
        "m = tf.keras.metrics.SparseCategoricalCrossentropy()\n"
        "p = tf.Variable([[0.2, 0.8]])\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = m(tf.constant([1]), p)\n"
        "g = tape.gradient(loss, p)\n"
    )
    assert "metric" in exc.message and "--run" in exc.message
