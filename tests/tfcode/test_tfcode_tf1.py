"""TF1 leftovers beyond the snippets: the variable store's errors (TensorFlow's ValueErrors,
checked against TensorFlow 2.21 by hand), AUTO_REUSE, initializers and scatter errors."""

from __future__ import annotations

import numpy as np
import pytest

from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

GRAPH = "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\n"
V = "tf.compat.v1"


def read(text: str):
    return read_program(text.encode(), "t.py")


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            f"with {V}.variable_scope('s'):\n    a = {V}.get_variable('w', [2])\n"
            f"with {V}.variable_scope('s'):\n    b = {V}.get_variable('w', [2])\n",
            "Variable s/w already exists, disallowed. Did you mean to set reuse=True or "
            "reuse=tf.AUTO_REUSE in VarScope?",
        ),
        (
            f"with {V}.variable_scope('o', reuse=True):\n    b = {V}.get_variable('w', [2])\n",
            "Variable o/w does not exist, or was not created with tf.get_variable(). Did you "
            "mean to set reuse=tf.AUTO_REUSE in VarScope?",
        ),
        (
            f"with {V}.variable_scope('s'):\n    a = {V}.get_variable('w', [2])\n"
            f"with {V}.variable_scope('s', reuse=True):\n    b = {V}.get_variable('w', [3])\n",
            "Trying to share variable s/w, but specified shape (3,) and found shape (2,).",
        ),
    ],
)
def test_the_graph_mode_variable_store_raises_tensorflows_value_errors(code, message):
    with pytest.raises(GradcliError) as exc:
        read(GRAPH + code)
    assert f"ValueError: {message}" in exc.value.message


def test_auto_reuse_shares_and_creates_and_scopes_nest():
    program = read(
        GRAPH + f"with {V}.variable_scope('a'):\n"
        f"    with {V}.variable_scope('b', reuse={V}.AUTO_REUSE):\n"
        f"        w = {V}.get_variable('w', [2], initializer=tf.ones_initializer())\n"
        f"        w2 = {V}.get_variable('w', [2])\n"
        f"        u = {V}.get_variable('u', [3, 4])\n"
        "y = tf.reduce_sum(w * w2) + tf.reduce_sum(u) * 0.0\n"
        "g = tf.gradients(y, [w, u])\n"
        f"with {V}.Session() as sess:\n    r = sess.run(g)\n"
    )
    [call] = program.calls
    gw, gu = call.evaluation.gradients.values()
    assert gw.tolist() == [2.0, 2.0]  # w and w2 are one variable: d(w.w)/dw = 2w
    assert gu.shape == (3, 4)


def test_the_default_initializer_is_glorot_uniform_within_its_limit():
    program = read(
        "import tensorflow as tf\n"
        "w = tf.compat.v1.get_variable('w', [30, 20])\n"
        "with tf.GradientTape() as tape:\n    y = tf.reduce_sum(w ** 2) / 2.0\n"
        "g = tape.gradient(y, w)\n"
    )
    [call] = program.calls
    value = call.evaluation.gradients["w"]  # dy/dw = w itself
    assert value.dtype == np.float32 and np.abs(value).max() <= np.sqrt(6 / 50)
    assert np.abs(value).max() > 0.5 * np.sqrt(6 / 50)


def test_scatter_update_out_of_range_is_refused():
    with pytest.raises(GradcliError) as exc:
        read(
            "import tensorflow as tf\nv = tf.Variable([1.0, 2.0])\n"
            "tf.compat.v1.scatter_update(v, [5], [1.0])\n"
        )
    # TensorFlow's InvalidArgumentError names its kernel's text, not gradcli's: refused
    assert "scatter index outside [0, 2)" in exc.value.message and exc.value.pos.line == 3
    assert "--run" in exc.value.message


def test_raw_ops_take_keyword_arguments_only_and_unknown_ones_are_refused_by_name():
    with pytest.raises(GradcliError) as exc:
        read("import tensorflow as tf\ny = tf.raw_ops.AddV2(1.0, 2.0)\n")
    assert "TypeError: add_v2 only takes keyword args (possible keys: ['x', 'y', 'name'])" in (
        exc.value.message
    )
    with pytest.raises(GradcliError) as exc:
        read("import tensorflow as tf\ny = tf.raw_ops.Fft(input=1.0)\n")
    assert "tf.raw_ops.Fft is not supported" in exc.value.message and exc.value.pos.line == 2
    with pytest.raises(GradcliError) as exc:
        read(
            "import tensorflow as tf\n"
            "y = tf.raw_ops.MatMul(a=[[1.0]], b=[[2.0]], transpose_a=True)\n"
        )
    assert "transpose_a" in exc.value.message
