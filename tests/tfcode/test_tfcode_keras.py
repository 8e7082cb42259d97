"""The reader's Keras object model: Keras 3's tracking, variable lists, names and paths,
dtype policy, and what stays refused (named at its line).

Expected names, paths and orders were printed by Keras 3.15.1 on TensorFlow 2.21 for the
same programs (the snippets with gradient values are in tests/data/tf_code/, compared with
TensorFlow's results by test_tfcode_reference.py).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import interpret_tf

from gradcli.cli.main import cli
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.interpret import Interpreter

CODE = Path(__file__).parents[1] / "data" / "tf_code"


interpret = interpret_tf  # the reader's interpreter after a program (tests/helpers.py)


def paths(it: Interpreter, expr: str) -> list[str]:
    tree = ast.parse(expr, mode="eval").body
    return [v.path for v in it.expr(tree, it.globals)]


# Keras printed: ['l/w', 'l/dense_2/kernel', 'l/dense_2/bias'], ['l/w', 'l/nt',
# 'l/dense_2/kernel', 'l/dense_2/bias'], ['l/nt'], then for M: ['m/mv', 'm/dense_3/kernel',
# ..., 'm/dense_5/bias'] and its layers ['dense_3', 'dense_4', 'dense_5']; Sequential:
# ['sequential/dense_7/kernel', ...] (dense_6 is the tf.Module's, before it)
TRACKING = """
import tensorflow as tf
d = tf.keras.layers.Dense(2)
y = d(tf.constant([[1.0, 2.0, 3.0]], dtype=tf.float64))
d2 = tf.keras.layers.Dense(2)
class L(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.raw = tf.Variable(1.0)
        self.d = tf.keras.layers.Dense(1)
    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")
        self.nt = self.add_weight(name="nt", shape=(), initializer="zeros", trainable=False)
    def call(self, x):
        return self.d(x * self.w) + self.raw
l = L()
out = l(tf.ones((2, 3)))
class M(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.a = tf.keras.layers.Dense(2)
        self.lst = [tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)]
        self.v = self.add_weight(shape=(1,), initializer="zeros", name="mv")
    def call(self, x):
        h = self.a(x)
        for layer in self.lst:
            h = layer(h)
        return h + self.v
m = M()
z = m(tf.ones((1, 4)))
class Mo(tf.Module):
    def __init__(self):
        super().__init__()
        self.b = tf.Variable(1.0, name="b")
        self.a = tf.Variable(2.0, name="a")
        self.d = tf.keras.layers.Dense(1)
        self.lst = [tf.Variable(3.0, name="c")]
mo = Mo()
u = mo.d(tf.ones((1, 2)))
s = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(3),
                         tf.keras.layers.Dense(1)])
"""


@pytest.fixture(scope="module")
def tracking() -> Interpreter:
    return interpret(TRACKING)


def test_layer_names_paths_and_the_float32_policy(tracking):
    it = tracking
    g = it.globals.vars
    assert (g["d"].layer.name, g["d2"].layer.name) == ("dense", "dense_1")
    assert g["d"].attrs["kernel"].path == "dense/kernel"
    assert it.g[g["y"].id].dtype == "float32"  # a float64 input is cast to float32


def test_custom_layer_variable_lists_are_keras_3s(tracking):
    it = tracking
    assert paths(it, "l.trainable_variables") == ["l/w", "l/dense_2/kernel", "l/dense_2/bias"]
    assert paths(it, "l.variables") == ["l/w", "l/nt", "l/dense_2/kernel", "l/dense_2/bias"]
    assert paths(it, "l.non_trainable_variables") == ["l/nt"]
    assert paths(it, "l.weights") == paths(it, "l.variables")
    assert it.globals.vars["l"].layer.name == "l"
    assert [(n, line) for n, _, line in it.globals.vars["l"].layer.untracked] == [("raw", 9)]


def test_model_lists_its_own_weights_first_then_its_layers_in_assignment_order(tracking):
    it = tracking
    assert paths(it, "m.trainable_variables") == [
        "m/mv", "m/dense_3/kernel", "m/dense_3/bias", "m/dense_4/kernel", "m/dense_4/bias",
        "m/dense_5/kernel", "m/dense_5/bias",
    ]  # fmt: skip
    layers = it.expr(ast.parse("m.layers", mode="eval").body, it.globals)
    assert [x.layer.name for x in layers] == ["dense_3", "dense_4", "dense_5"]


def test_tf_module_sorts_its_attributes_and_skips_keras_layers(tracking):
    it = tracking
    got = it.expr(ast.parse("mo.trainable_variables", mode="eval").body, it.globals)
    assert [v.tf_name for v in got] == ["a", "b", "c"]


def test_sequential_builds_from_its_input_in_its_scope(tracking):
    it = tracking
    assert paths(it, "s.trainable_variables") == [
        "sequential/dense_7/kernel", "sequential/dense_7/bias", "sequential/dense_8/kernel",
        "sequential/dense_8/bias",
    ]  # fmt: skip
    layers = it.expr(ast.parse("s.layers", mode="eval").body, it.globals)
    assert [x.layer.name for x in layers] == ["dense_7", "dense_8"]


def test_trainable_false_after_build_and_set_weights():
    it = interpret(
        """
        import numpy as np
        import tensorflow as tf
        inner = tf.keras.layers.Dense(1, kernel_initializer="ones")
        model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), inner])
        before = len(model.trainable_variables)
        model.trainable = False
        after = len(model.trainable_variables)
        frozen = len(model.non_trainable_variables)
        flag = inner.kernel.trainable
        model.set_weights([np.array([[2.0], [3.0]]), np.array([0.5])])
        weights = model.get_weights()
        """
    )
    g = it.globals.vars
    assert (g["before"], g["after"], g["frozen"], g["flag"]) == (2, 0, 2, False)
    assert g["inner"].attrs["kernel"].trainable  # TensorFlow's flag: tapes still watch it
    assert it.value(g["weights"][0].id).tolist() == [[2.0], [3.0]]
    assert it.value(g["weights"][1].id).dtype.name == "float32"


def test_set_weights_with_a_wrong_shape_is_kerass_value_error():
    source = """
        import numpy as np
        import tensorflow as tf
        layer = tf.keras.layers.Dense(2)
        layer.build((None, 3))
        layer.set_weights([np.zeros((2, 2)), np.zeros(2)])
        """
    with pytest.raises(GradcliError) as exc:
        interpret(source)
    assert "ValueError" in exc.value.message and "(3, 2)" in exc.value.message
    assert exc.value.pos.line == 6


def test_the_untracked_variable_is_named_in_a_note():
    program = read_program((CODE / "keras_untracked_variable.py").read_bytes(), "k.py")
    paths, notes = program.calls[0].notes
    assert paths == "layer.trainable_variables: [0] biased/dense/kernel, [1] biased/dense/bias"
    assert "layer.shift" in notes and "line 13" in notes
    assert program.calls[1].notes == []


# (code after "import tensorflow as tf", the construct named, its line)
REFUSED = [
    ("x = tf.keras.layers.Conv3DTranspose(4, 3)", "tf.keras.layers.Conv3DTranspose", 2),
    ("x = tf.keras.layers.UpSampling2D(interpolation='bicubic')",
     "interpolation='bicubic'", 2),
    ("x = tf.keras.layers.Normalization()", "Normalization without mean=", 2),
    ("n = tf.keras.layers.Normalization(mean=0.0, variance=1.0)\nn.adapt(tf.ones((2, 3)))",
     "Normalization.adapt", 3),
    ("x = tf.keras.layers.SeparableConv2D(2, 3, strides=2, dilation_rate=2)",
     "both strides and dilation_rate", 2),
    ("b = tf.keras.layers.Bidirectional(tf.keras.layers.Dense(2))", "Bidirectional of a Dense",
     2),
    ("r = tf.keras.layers.LSTM(2, stateful=True)", "LSTM(..., stateful=...)", 2),
    ("m = tf.keras.layers.Concatenate()\ny = m([tf.ones((2, 3)), tf.ones((2,))])",
     "different ranks", 3),
    ("x = tf.keras.losses.CTC()", "tf.keras.losses.CTC", 2),
    ("inp = tf.keras.Input(shape=(None, 2))\nout = tf.keras.layers.Dense(1)(inp)",
     "an unknown dimension", 3),
    ("m = tf.keras.Model(1, 2)", "tf.keras.Model(inputs=a int)", 2),
    ("m = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nm.compile(loss='ctc')",
     "compile(loss='ctc')", 3),
    ("m = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nm.compile(loss='mse')\n"
     "m.fit([[1.0]], [[2.0]], callbacks=[print])", "a callback that is", 4),
    ("m = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nm.predict(1)",
     "Keras training data that is a scalar", 3),
    ("m = tf.keras.Sequential([tf.keras.layers.Dense(1)])\nm.compile(loss='mse')\n"
     "m.fit([[1.0]], [[2.0]], class_weight=[1])", "class_weight=a list", 4),
    ("d = tf.keras.layers.Dense(1)\ny = d(tf.ones((4,)))", "rank-1", 3),
    ("d = tf.keras.layers.Dense(1, kernel_constraint='non_neg')", "kernel_constraint", 2),
    ("class A(tf.keras.layers.Conv3DTranspose):\n    pass",
     "a class deriving from tf.keras.layers.Conv3DTranspose", 2),
    ("def f(a, /):\n    pass", "positional-only parameters", 2),
    ("def f(**kw):\n    pass\nf(**[1])", "**-unpacking a list", 4),
    ("@tf.function\nclass A(tf.Module):\n    pass", "a class decorator", 2),
    ("class A(tf.Module):\n    @staticmethod\n    def f():\n        pass", "@staticmethod", 3),
    ("x = tf.keras.Input(shape=(2,))\ny = tf.concat([x, x], 0)", "concat of a KerasTensor", 3),
]  # fmt: skip


@pytest.mark.parametrize(("code", "construct", "line"), REFUSED)
def test_what_stays_out_is_refused_at_its_line_by_name(code, construct, line):
    source = "import tensorflow as tf\n" + code + "\n"
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "r.py")
    assert construct in exc.value.message
    assert "not supported" in exc.value.message
    assert exc.value.pos.line == line


def test_check_agrees_on_a_subclassed_model():
    res = CliRunner().invoke(cli, ["check", str(CODE / "keras_custom_layer.py")])
    assert res.exit_code == 0, res.stdout
    assert "call 0, line 57" in res.stdout and "agree" in res.stdout


def test_keras_guide_style_paths_and_unnamed_weights():
    # Keras printed ['mlp/hidden/variable', 'mlp/hidden/variable_1',
    # 'mlp/sequential/dense/kernel', 'mlp/sequential/dense/bias',
    # 'mlp/sequential/linear/variable_2', 'mlp/sequential/linear/variable_3']
    source = (CODE / "keras_guide_subclass.py").read_text()
    it = Interpreter("k.py", source.splitlines())
    it.run_module(ast.parse(source))
    assert paths(it, "model.trainable_weights") == [
        "mlp/hidden/variable", "mlp/hidden/variable_1", "mlp/sequential/dense/kernel",
        "mlp/sequential/dense/bias", "mlp/sequential/linear/variable_2",
        "mlp/sequential/linear/variable_3",
    ]  # fmt: skip


def test_star_args_and_kwargs_bind_as_python_does():
    it = interpret(
        """
        def f(a, *rest, scale=1, **options):
            return (a, rest, scale, options)
        out = f(1, 2, 3, scale=4, name="x", **{"b": 5})
        args = [7, 8]
        again = f(*args)
        """
    )
    assert it.globals.vars["out"] == (1, (2, 3), 4, {"name": "x", "b": 5})
    assert it.globals.vars["again"] == (7, (8,), 1, {})


def test_eval_json_gives_keras_variables_their_path():
    import json

    res = CliRunner().invoke(
        cli, ["eval", str(CODE / "keras_sequential_fixed.py"), "--format", "json"]
    )
    grads = json.loads(res.stdout)["calls"][0]["gradients"]
    assert [g["name"] for g in grads][:2] == [
        "model.trainable_variables[0]", "model.trainable_variables[1]"
    ]  # fmt: skip
    # Keras: sequential/dense/kernel ... (a fresh program: the first Dense is "dense")
    assert [g["path"] for g in grads] == [
        "sequential/dense/kernel", "sequential/dense/bias", "sequential/dense_1/kernel",
        "sequential/dense_1/bias",
    ]  # fmt: skip


def test_sequential_with_input_builds_custom_layers_at_once_with_a_none_batch():
    # Keras printed "3 None": three trainable variables before any call, build's batch None
    source = (CODE / "keras_sequential_custom.py").read_text()
    it = Interpreter("k.py", source.splitlines())
    it.run_module(ast.parse(source))
    assert it.globals.vars["count"] == 3
    assert it.expr(ast.parse("model.layers[0].batch", mode="eval").body, it.globals) is None


def test_a_layer_held_twice_or_holding_its_parent_is_walked_once():
    # the reader's own guarantee (no endless walk), not a Keras fact: each layer counts once
    it = interpret(
        """
        import tensorflow as tf
        class Block(tf.keras.layers.Layer):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner
                self.again = [inner]
            def call(self, x):
                return self.inner(x)
        inner = tf.keras.layers.Dense(1)
        block = Block(inner)
        inner.parent = block
        y = block(tf.ones((1, 2)))
        n = len(block.variables)
        block.trainable = False
        m = len(block.trainable_variables)
        """
    )
    assert (it.globals.vars["n"], it.globals.vars["m"]) == (2, 0)


def test_a_class_deriving_from_unread_code_is_opaque_from_its_line():
    source = textwrap.dedent(
        """
        import tensorflow as tf
        from mymodels import Block
        class Net(Block):
            def call(self, x):
                return x
        w = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            loss = Net()(w)
        g = tape.gradient(loss, w)
        """
    )
    program = read_program(source.encode(), "o.py")
    [call] = program.calls
    assert call.unknown is not None and call.unknown["line"] == 9


# TensorFlow 2.21 / Keras 3.15.1's errors (type, first message line), checked with /work/tfref
TRAINING_ERRORS = [
    ("m = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])\n"
     "m.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0)", 4,
     "ValueError", "You must call `compile()` before using the model."),
    ("m = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])\n"
     "o = tf.keras.optimizers.SGD()\no.minimize(lambda: 1.0, m.trainable_variables)", 5,
     "AttributeError", "'SGD' object has no attribute 'minimize'"),
]  # fmt: skip


@pytest.mark.parametrize(("code", "line", "kind", "message"), TRAINING_ERRORS)
def test_training_apis_raise_what_tensorflow_raises(code, line, kind, message):
    source = "import numpy as np\nimport tensorflow as tf\n" + code + "\n"
    with pytest.raises(GradcliError) as exc:  # no call to report: the error is the answer
        read_program(source.encode(), "t.py")
    assert exc.value.pos.line == line
    assert exc.value.message.startswith(f"{kind}: {message}")


def test_fit_is_one_call_on_the_first_batch():
    # by hand: rows 0-1 of x; pred = x @ [[1], [1]] = [3, 1]; loss = mean((pred - y)^2)
    # with y = [1, 0]: dloss/dpred = (pred - y) = [2, 1] (2/n with n = 2); dW = x^T [2, 1]
    source = (
        "import numpy as np\nimport tensorflow as tf\n"
        "m = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])\n"
        "m.set_weights([np.ones((2, 1)), np.zeros(1)])\n"
        "m.compile(optimizer='sgd', loss='mean_squared_error')\n"
        "x = np.array([[1.0, 2.0], [0.0, 1.0], [5.0, 5.0]])\n"
        "y = np.array([[1.0], [0.0], [9.0]])\n"
        "m.fit(x, y, batch_size=2, epochs=3, shuffle=False)\n"
    )
    program = read_program(source.encode(), "t.py")
    (call,) = program.calls
    assert (call.kind, call.line, call.target) == ("fit", 8, "compiled loss")
    assert call.sources == ["m.trainable_variables[0]", "m.trainable_variables[1]"]
    kernel, bias = call.evaluation.gradients.values()
    assert kernel.tolist() == [[2.0], [5.0]] and bias.tolist() == [3.0]


def test_fit_json_reports_a_fit_call_with_tensorflows_error_and_the_cause():
    import json

    path = str(CODE / "keras_fit_numpy_loss.py")
    res = CliRunner().invoke(cli, ["eval", path, "--format", "json"])
    (call,) = json.loads(res.stdout)["calls"]
    assert (call["kind"], call["line"], call["target"]) == ("fit", 17, "compiled loss")
    # TensorFlow 2.21 raises while tracing train_step (tests/data/tf_code_reference.json)
    assert call["error"] == {
        "type": "AttributeError", "message": "'SymbolicTensor' object has no attribute 'numpy'"
    }  # fmt: skip
    assert [g["path"] for g in call["gradients"]] == [
        "sequential/dense/kernel", "sequential/dense/bias"
    ]  # fmt: skip
    res = CliRunner().invoke(cli, ["explain", path, "--format", "json"])
    pairs = json.loads(res.stdout)["pairs"]
    assert [p["input"] for p in pairs] == call["sources"]
    for pair in pairs:
        assert pair["causes"][0]["kind"] == "leaves_tape" and pair["causes"][0]["line"] == 10


def test_tf1_minimize_with_no_gradient_is_refused():
    # TensorFlow 2.21 (checked with /work/tfref): ValueError "No gradients provided for any
    # variable, check your graph for ops that do not support gradients, between variables
    # [...] and loss <function ...>" at the minimize line
    source = (
        "import tensorflow as tf\n"
        "w = tf.Variable([1.0, -2.0])\n"
        "opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)\n"
        "opt.minimize(lambda: tf.cast(tf.argmax(w), tf.float32), var_list=[w])\n"
    )
    # its text names the loss function's address, so no run records it: refused
    with pytest.raises(GradcliError) as exc:
        read_program(source.encode(), "t.py")
    assert "minimize where every gradient is None" in exc.value.message
    assert exc.value.pos.line == 4 and "--run" in exc.value.message


def test_check_agrees_on_a_fit_call():
    res = CliRunner().invoke(cli, ["check", str(CODE / "keras_fit_custom_loss.py")])
    assert res.exit_code == 0, res.output
    assert "check ok: 4 gradients agree" in res.output
