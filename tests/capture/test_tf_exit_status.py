"""One exit status for a TensorFlow script, whichever way it is read: `eval` and `explain`,
statically and with `--run`, exit 1 for a None, entirely zero or NaN gradient, 0 for a
connected one (partly zero included: a few dead ReLU units are normal), and 2 for a script
without any gradient call (docs/limits.md#exit-status-and-errors)."""

from __future__ import annotations

import json
import os
import textwrap

import pytest
from helpers import invoke

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")

# relu'(1) = 1, relu'(-2) = 0: TensorFlow's gradient is [1, 0]; z is not used: None
SCRIPTS = {
    "partly_zero": (
        """\
        import tensorflow as tf
        x = tf.Variable([1.0, -2.0])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.nn.relu(x))
        print(tape.gradient(y, x))
        """,
        0,
    ),
    "none": (
        """\
        import tensorflow as tf
        x = tf.Variable([1.0, -2.0])
        z = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.nn.relu(x))
        print(tape.gradient(y, [x, z]))
        """,
        1,
    ),
    "entirely_zero": (
        """\
        import tensorflow as tf
        x = tf.Variable([-1.0, -2.0])
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.nn.relu(x))
        print(tape.gradient(y, x))
        """,
        1,
    ),
    "no_call": (
        """\
        import tensorflow as tf
        print(tf.constant(1.0) * 2)
        """,
        2,
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("command", ["eval", "explain"])
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_both_ways_give_one_exit_status(tmp_path, name, command):
    text, expected = SCRIPTS[name]
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    static = invoke(command, path, "--format", "json")
    run = invoke(command, "--run", path, "--format", "json")
    assert (static.code, run.code) == (expected, expected), (static.stderr, run.stderr)
    if expected == 2:
        assert static.stderr.splitlines()[-1] == (
            f"gradcli: error: {path}: the program makes no gradient call (tape.gradient, "
            "tf.gradients, model.fit), so there is nothing to report"
        )
        assert "without any gradient call" in run.stderr.splitlines()[-1]


def test_an_unconnected_gradient_asked_for_as_zeros_is_not_called_none(tmp_path):
    path = tmp_path / "zeros.py"  # TensorFlow gives 0.0 for z, not None
    path.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable(1.0)\n"
        "z = tf.Variable(2.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    y = x * 3.0\n"
        "g = tape.gradient(y, [x, z], unconnected_gradients=tf.UnconnectedGradients.ZERO)\n"
    )
    res = invoke("explain", "--run", path, "--format", "json")
    doc = json.loads(res.stdout)
    assert doc["calls"][0]["gradients"][1]["value"] == 0.0
    [pair] = [p for p in doc["pairs"] if p["input"] == "z"]
    assert pair["status"] == "unconnected"
    assert pair["reason"].startswith("y gets no gradient to z (reported as zeros): no_path")
