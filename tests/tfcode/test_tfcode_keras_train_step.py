"""A Keras Model subclass with its own train_step / test_step ("Customizing what happens in
fit()"). Expected structures and errors are what Keras 3.15.1 on TensorFlow 2.21 gave for the
same programs (run once with a scratch TensorFlow); gradient values are in the snippets
keras_train_step_*.py (tests/data/tf_code_reference.json)."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gradcli.cli.main import cli
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.values import Opaque, Tensor

DATA = Path(__file__).parents[1] / "data" / "tf_code"

HEAD = """import numpy as np
import tensorflow as tf
import keras


class M(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        self.seen = data
        x = data[0] if isinstance(data, tuple) else data
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(self(x, training=True))
        grads = tape.gradient(loss, self.trainable_variables)
        return {"loss": loss}

    def test_step(self, data):
        self.tested = data
        return {"loss": 0.0}


model = M()
model.compile(optimizer="adam")
x = np.ones((4, 3), np.float32)
y = np.zeros((4, 1), np.float32)
sw = np.ones(4, np.float32)
"""


def run(code: str):
    """The reader's interpreter after HEAD + code (nothing refused)."""
    from gradcli.tfcode.interpret import Interpreter
    from gradcli.tfcode.refusals import Refusals

    source = HEAD + textwrap.dedent(code)
    it = Interpreter("t.py", source.splitlines(), {})
    it.refusals = Refusals("t.py")
    it.run_module(ast.parse(source))
    if it.refusals:
        raise it.refusals.error()
    return it


def shape_of(it, value):
    """The structure Keras passes, with each tensor as its shape ('T' + shape)."""
    if isinstance(value, tuple):
        return tuple(shape_of(it, v) for v in value)
    if isinstance(value, Tensor):
        return ("T", tuple(it.g[value.id].shape))
    return value


# (the call, the data train_step/test_step received) as Keras 3 passed them
DATA_STRUCTURES = [
    ("model.fit(x, y, verbose=0)", "seen", (("T", (4, 3)), ("T", (4, 1)))),
    ("model.fit(x, verbose=0)", "seen", ("T", (4, 3))),
    ("model.fit(x, y, sample_weight=sw, verbose=0)", "seen",
     (("T", (4, 3)), ("T", (4, 1)), ("T", (4,)))),
    ("model.fit(x, sample_weight=sw, verbose=0)", "seen", ("T", (4, 3))),  # sw dropped
    ("model.fit(x, y, batch_size=2, verbose=0)", "seen", (("T", (2, 3)), ("T", (2, 1)))),
    ("model.train_on_batch(x, y)", "seen", (("T", (4, 3)), ("T", (4, 1)), None)),
    ("model.train_on_batch(x)", "seen", (("T", (4, 3)), None, None)),
    ("model.evaluate(x, y, verbose=0)", "tested", (("T", (4, 3)), ("T", (4, 1)))),
    ("model.evaluate(x, verbose=0)", "tested", ("T", (4, 3))),
    ("model.evaluate(x, y, sample_weight=sw, verbose=0)", "tested",
     (("T", (4, 3)), ("T", (4, 1)), ("T", (4,)))),
    ("model.test_on_batch(x, y)", "tested", (("T", (4, 3)), ("T", (4, 1)), None)),
    ("model.test_on_batch(x)", "tested", (("T", (4, 3)), None, None)),
    ("model.fit(tf.data.Dataset.from_tensor_slices(x).batch(2), verbose=0)", "seen",
     ("T", (2, 3))),
    ("model.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(4), verbose=0)", "seen",
     (("T", (4, 3)), ("T", (4, 1)))),
]  # fmt: skip


@pytest.mark.parametrize(("call", "attr", "want"), DATA_STRUCTURES)
def test_the_data_is_what_keras_passes(call, attr, want):
    it = run(call)
    model = it.globals.vars["model"]
    assert shape_of(it, model.attrs[attr]) == want


def test_the_gradient_calls_are_the_users_at_their_line():
    it = run("model.fit(x, y, verbose=0)\n")
    (call,) = it.calls
    assert call.line == HEAD.splitlines().index(
        "        grads = tape.gradient(loss, self.trainable_variables)") + 1  # fmt: skip
    assert call.sources == ["self.trainable_variables[0]", "self.trainable_variables[1]"]
    assert any("traces train_step" in n for n in call.notes)
    assert any("own train_step" in n and "model.fit" in n for n in call.notes)


def test_run_eagerly_is_not_traced_and_only_the_first_step_is_listed():
    it = run('model.compile(optimizer="adam", run_eagerly=True)\n'
             "model.fit(x, y, batch_size=1, epochs=3, verbose=0)\n")  # fmt: skip
    (call,) = it.calls
    assert not any("traces" in n for n in call.notes)


def test_fit_returns_an_opaque_history_and_metrics_are_opaque():
    it = run("""
        history = model.fit(x, y, verbose=0)
        tracker = keras.metrics.Mean(name="loss")
        tracker.update_state(3.0)
        value = tracker.result()
        name = tracker.name
        tracker.reset_state()
        names = [m.name for m in model.metrics]
        """)
    g = it.globals.vars
    assert isinstance(g["history"], Opaque)
    assert isinstance(g["value"], Opaque) and "loss.result()" in g["value"].reason()
    assert g["name"] == "loss"
    assert g["names"] == ["loss"]


def test_a_metric_in_the_gradient_path_is_unknown_beyond_its_line():
    it = run("""
        tracker = keras.metrics.Mean()
        w = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            loss = w * tracker.result()
        g = tape.gradient(loss, w)
        """)
    (call,) = it.calls
    assert call.unknown is not None
    assert call.unknown["line"] == len(HEAD.splitlines()) + 5


RAISES = [
    # fit before compile: Keras's ValueError at the fit line
    ("other = M()\nother.fit(x, y, verbose=0)\n", 2, "ValueError",
     "You must call `compile()` before using the model."),
    # Keras 3 optimizers have no minimize
    ("opt = keras.optimizers.SGD()\nopt.minimize(lambda: 1.0, [])\n", 2, "AttributeError",
     "'SGD' object has no attribute 'minimize'"),
    # compute_loss with no compiled loss and no model.losses
    ("model.compute_loss(y=y, y_pred=y)\n", 1, "ValueError", "No loss to compute."),
]  # fmt: skip


def test_unpacking_four_parts_is_refused():
    # TensorFlow 2.21's ValueError prints the tuple itself (tests/data/tf_errors.json):
    # refused rather than approximate its text
    with pytest.raises(GradcliError) as exc:
        run("keras.utils.unpack_x_y_sample_weight((x, x, x, x))\n")
    assert "unpacking data of 4 parts" in exc.value.message and "--run" in exc.value.message


@pytest.mark.parametrize(("code", "line", "kind", "message"), RAISES)
def test_errors_are_kerass(code, line, kind, message):
    it = run(code)
    assert it.error is not None and it.error.kind == kind
    assert message in it.error.message
    assert it.error.pos.line == len(HEAD.splitlines()) + line


def test_unpack_and_pack_x_y_sample_weight():
    it = run("""
        a = keras.utils.unpack_x_y_sample_weight((x, y))
        b = keras.utils.unpack_x_y_sample_weight(x)
        c = keras.utils.unpack_x_y_sample_weight((x,))
        d = keras.utils.pack_x_y_sample_weight(x, y)
        e = keras.utils.pack_x_y_sample_weight(x)
        """)
    g = it.globals.vars
    assert g["a"][2] is None and g["a"][0] is g["x"] and g["a"][1] is g["y"]
    assert g["b"][1:] == (None, None) and g["c"][1:] == (None, None)
    assert g["d"] == (g["x"], g["y"]) and g["e"] is g["x"]


def test_keras_own_train_step_from_the_class_is_refused_by_name():
    code = HEAD.replace("        self.seen = data\n", "        return super().train_step(data)\n")
    with pytest.raises(GradcliError) as exc:
        read_program((code + "model.fit(x, y, verbose=0)\n").encode(), "t.py")
    assert "super().train_step" in exc.value.message


def test_tf_shape_gives_the_batch_size_for_random_shapes():
    it = run("""
        n = tf.shape(x)[0]
        z = tf.random.normal(shape=(n, 2))
        o = tf.ones((n, 1))
        s = tf.shape(y, out_type=tf.int64)
        """)
    g = it.globals.vars
    assert it.g[g["z"].id].shape == (4, 2) and it.g[g["o"].id].shape == (4, 1)
    assert it.value(g["s"].id).tolist() == [4, 1] and it.value(g["s"].id).dtype == "int64"


def test_explain_and_check_from_the_command_line():
    runner = CliRunner()
    path = str(DATA / "keras_train_step_eager_compiled_loss.py")
    out = runner.invoke(cli, ["explain", path, "--format", "json"])
    assert out.exit_code == 1, out.output
    report = json.loads(out.output)
    text = json.dumps(report)
    assert "non_differentiable" in text and "No gradients provided" in text
    out = runner.invoke(cli, ["check", str(DATA / "keras_train_step_basic.py")])
    assert out.exit_code == 0, out.output


def test_fit_of_a_model_from_unread_code_is_an_unknown_call_not_silence():
    code = textwrap.dedent("""\
        import numpy as np
        from mymodels import build_model

        model = build_model()
        model.compile(optimizer="adam", loss="mse")
        history = model.fit(np.ones((4, 3)), np.zeros((4, 1)))
        model.train_on_batch(np.ones((4, 3)), np.zeros((4, 1)))
        """)
    program = read_program(code.encode(), "t.py")
    assert [c.line for c in program.calls] == [6, 7]
    for call in program.calls:
        assert call.unknown["line"] == 4
        assert call.sources == ["model.trainable_variables"]


def test_a_functional_subclass_keeps_its_methods_and_is_named_after_its_class():
    it = run("""
        class Sub(keras.Model):
            def train_step(self, data):
                self.seen = data
                return {}


        inputs = keras.Input(shape=(3,))
        sub = Sub(inputs, keras.layers.Dense(1)(inputs))
        sub.compile(optimizer="sgd")
        sub.fit(x, y, verbose=0)
        name = sub.name
        """)
    sub = it.globals.vars["sub"]
    assert it.globals.vars["name"] == "sub"
    assert shape_of(it, sub.attrs["seen"]) == (("T", (4, 3)), ("T", (4, 1)))
    assert sub.cls.is_a("Functional")


def test_optimizer_apply_with_every_gradient_none_is_kerass_error():
    it = run("""
        opt = keras.optimizers.Adam()
        w = tf.Variable(1.0)
        opt.apply([None], [w])
        """)
    assert (
        it.error.kind == "ValueError"
        and it.error.message == "No gradients provided for any variable."
    )


def test_a_call_after_sgds_apply_gradients_is_at_the_updated_values():
    """A custom loop's second gradient call is at the values apply_gradients left: SGD's
    update is computed (w - lr * g, lr a float32 variable), so it is TensorFlow's
    gradient there: 2 * (w - 0.1 * 2w) = 1.6 w in float32."""
    from gradcli.tfcode import read_program

    text = (
        "import tensorflow as tf\n"
        "w = tf.Variable([1.0, 2.0])\n"
        "opt = tf.keras.optimizers.SGD(0.1)\n"
        "for step in range(2):\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = tf.reduce_sum(w * w)\n"
        "    grads = tape.gradient(loss, [w])\n"
        "    opt.apply_gradients(zip(grads, [w]))\n"
    )
    _, second = read_program(text.encode(), "t.py").calls
    w = np.array([1.0, 2.0], np.float32)
    after = w - (2 * w) * np.float32(0.1)
    assert np.array_equal(second.evaluation.gradients["w"], 2 * after)


def test_a_call_after_an_update_gradcli_does_not_compute_is_refused():
    from gradcli.tfcode import read_program

    text = (
        "import tensorflow as tf\n"
        "w = tf.Variable([1.0, 2.0])\n"
        "opt = tf.keras.optimizers.RMSprop(0.1)\n"
        "for step in range(2):\n"
        "    with tf.GradientTape() as tape:\n"
        "        loss = tf.reduce_sum(w * w)\n"
        "    grads = tape.gradient(loss, [w])\n"
        "    opt.apply_gradients(zip(grads, [w]))\n"
    )
    with pytest.raises(GradcliError) as exc:
        read_program(text.encode(), "t.py")
    assert exc.value.pos.line == 7
    assert "a gradient call after an optimizer updated the variables at line 8" in str(exc.value)
    assert "gradcli explain --run t.py" in str(exc.value)
