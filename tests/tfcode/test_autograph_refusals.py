"""Programs the static reader used to read where TensorFlow 2.21 raises (issue 29), now refused
at their line naming --run, through the CLI. What TensorFlow does with each was checked with a
real TensorFlow 2.21 run: the snippets' runs are in tests/data/tf_code_reference.json (their
"error"); the inline programs' are noted beside them (TypeError where Python's float(), int()
or truth value meets a graph tensor that AutoGraph did not convert; ImportError for Keras 3's
legacy optimizers). Where a construct is not sure to read exactly, it is refused even where
TensorFlow runs it (an input_signature with an unknown dimension, a Python number for it)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from helpers import ROOT

CODE = ROOT / "tests" / "data" / "tf_code"


def explain(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gradcli", "explain", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def refusal(path) -> tuple[int, int, str]:
    """(line, col, message) of the one stderr line a refused file gives (exit 2)."""
    out = explain(path)
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == "" and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    m = re.match(rf"gradcli: error: {re.escape(str(path))}:(\d+):(\d+): (.*)$", lines[0])
    assert m, lines[0]
    return int(m[1]), int(m[2]), m[3]


@pytest.mark.parametrize(
    ("name", "line", "col", "words"),
    [
        ("autograph_float_keras_call", 8, 16, "float() of a traced (symbolic) tensor"),
        ("autograph_false_int", 10, 16, "int() of a traced (symbolic) tensor"),
        (
            "tf_function_signature_dtype",
            14,
            9,
            "a call of f() with argument 0 a int32 tensor of shape () for its "
            "input_signature's TensorSpec(shape=[], dtype=tf.float32)",
        ),
    ],
)
def test_what_tensorflow_raises_at_is_refused_naming_run(name, line, col, words):
    got = refusal(CODE / f"{name}.py")
    assert got[:2] == (line, col)
    assert words in got[2]
    assert "gradcli explain --run" in got[2] and "needs TensorFlow" in got[2]


def test_a_keras_3_optimizer_minimize_is_tensorflows_attribute_error():
    line, col, message = refusal(CODE / "keras_optimizer_minimize.py")
    assert (line, col) == (7, 1)
    assert message.startswith("AttributeError: 'SGD' object has no attribute 'minimize'")


HEAD = "import tensorflow as tf\n\nx = tf.Variable(2.0)\n"
TAIL = "\nwith tf.GradientTape() as tape:\n    y = f(x * 1.0)\nprint(tape.gradient(y, x))\n"
# (program body, the refused line, words of the refusal); TensorFlow 2.21's run of each in
# the comment
INLINE = {
    # TypeError: float() argument must be ... not 'SymbolicTensor'
    "custom_gradient_float": (
        "@tf.custom_gradient\ndef cg(u):\n    return float(u) * 2.0, lambda dy: dy * 2.0\n"
        "@tf.function\ndef f(v):\n    return cg(v)\n",
        6,
        "float() of a traced (symbolic) tensor",
    ),
    # OperatorNotAllowedInGraphError: using a symbolic tf.Tensor as a Python bool
    "layer_if": (
        "class L(tf.keras.layers.Layer):\n    def call(self, v):\n        if v > 0:\n"
        "            return v\n        return -v\nlay = L()\n@tf.function\ndef f(v):\n"
        "    return lay(v)\n",
        6,
        "a condition on a traced (symbolic) tensor",
    ),
    # TypeError: Expected any non-tensor type, but got a tensor instead.
    "constant_of_cast": (
        "@tf.function\ndef f(v):\n    a = float(v)\n    return tf.constant(a)\n",
        7,
        "tf.constant of a traced (symbolic) tensor",
    ),
    # runs; the body sees a graph tensor where the reader would see 2.0
    "signature_python_number": (
        "@tf.function(input_signature=[tf.TensorSpec([], tf.float32)])\ndef g(v):\n"
        "    return v * x\ndef f(u):\n    return g(2.0) * u\n",
        8,
        "a call of g() with an input_signature and argument 0 a float",
    ),
    # runs; inside, v.shape is (None,)
    "signature_unknown_size": (
        "@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])\ndef g(v):\n"
        "    return tf.reduce_sum(v)\ndef f(u):\n    return g(tf.stack([u, u]))\n",
        8,
        "input_signature has an unknown dimension (TensorSpec(shape=[None], dtype=tf.float32))",
    ),
    # ImportError: `keras.optimizers.legacy` is not supported in Keras 3
    "legacy_optimizer": (
        "opt = tf.keras.optimizers.legacy.SGD(0.1)\ndef f(u):\n    return u * 3.0\n",
        4,
        "tf.keras.optimizers.legacy.SGD is not supported",
    ),
}


@pytest.mark.parametrize("case", sorted(INLINE))
def test_python_conversions_outside_autograph_and_unbound_signatures_are_refused(case, tmp_path):
    body, line, words = INLINE[case]
    path = tmp_path / f"{case}.py"
    path.write_text(HEAD + body + TAIL)
    got_line, _, message = refusal(path)
    assert got_line == line, message
    assert words in message and "--run" in message


def test_float_of_a_traced_tensor_autograph_converts_is_still_read(tmp_path):
    """float(v) directly in a tf.function is AutoGraph's cast (TensorFlow 2.21: dy/dx = 2)."""
    path = tmp_path / "cast.py"
    path.write_text(HEAD + "@tf.function\ndef f(v):\n    return float(v) * 2.0\n" + TAIL)
    out = explain(path)
    assert out.returncode == 0, out.stderr
    assert "connected, nonzero everywhere: dy/dx" in out.stdout
