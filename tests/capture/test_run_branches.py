"""The run mode names an untaken branch (capture/diagnosis_branches): a source whose only
use is a branch of a Python `if`, `x if c else y` or `tf.cond` that never ran gets
`untaken_branch` at the construct's line, as the static reader says, and everything the
run cannot show stays `no_path`.

Each script asserts the framework's own gradient (None) as it runs, so the expectations
below hold for TensorFlow and PyTorch themselves; which branch ran is Python's semantics of
the script. PyTorch's run uses the same diagnosis: the same rule holds there.
"""

from __future__ import annotations

import json
import os
import textwrap

import pytest

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _run(tmp_path, source: str) -> dict:
    from gradcli.cli.run_commands import read_run
    from gradcli.views.format import dumps
    from gradcli.views.run_report import document

    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(source))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        program, diagnosis = read_run(str(path), None, (), "all", 0, 60)
    finally:
        os.chdir(cwd)
    doc = json.loads(dumps(document(program, diagnosis, with_pairs=True)))
    assert doc["error"] is None, doc["error"]
    return doc


def _first_causes(doc: dict) -> dict:
    return {
        (p["call"], p["input"]): (p["causes"][0]["kind"], p["causes"][0]["line"])
        for p in doc["pairs"]
        if p["causes"]
    }


TF_TAKEN = """
import tensorflow as tf

USE_RELU = False
x = tf.constant([1.0, -2.0])
w_a = tf.Variable(0.5)
w_b = tf.Variable(0.5)
w_c = tf.Variable(2.0)
w_d = tf.Variable(3.0)
w_e = tf.Variable(4.0)


def square(v):
    return v * v


with tf.GradientTape(persistent=True) as tape:
    if USE_RELU:
        h = tf.nn.relu(w_a * x)
    else:
        h = tf.tanh(w_b * x)
    loss = tf.reduce_sum(h)
    if x[0] > 5.0:
        loss = loss + square(w_c)
    y = tf.cond(x[0] < 0.0, lambda: w_d * 2.0, lambda: tf.constant(1.0))
    z = (w_e * x) if USE_RELU else x
    total = tf.reduce_sum(z)

g = tape.gradient(loss, [w_a, w_b, w_c])
assert g[0] is None and g[2] is None
assert tape.gradient(y, [w_d])[0] is None
assert tape.gradient(total, [w_e])[0] is None
"""


def test_tensorflow_untaken_branches(tmp_path):
    """if/else, an if without else on a tensor's value (through a helper), tf.cond with a
    constant branch, and `x if c else y` whose taken side is a plain name."""
    pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")
    found = _first_causes(_run(tmp_path, TF_TAKEN))
    assert found == {
        (0, "w_a"): ("untaken_branch", 18),
        (0, "w_c"): ("untaken_branch", 23),
        (1, "w_d"): ("untaken_branch", 25),
        (2, "w_e"): ("untaken_branch", 26),
    }


TF_NOT_UNTAKEN = """
import tensorflow as tf

x = tf.constant([1.0, 2.0])
w1 = tf.Variable(1.0)
w2 = tf.Variable(2.0)
w3 = tf.Variable(3.0)
w4 = tf.Variable(4.0)
w5 = tf.Variable(5.0)
w5 = tf.Variable(6.0)


def never_called():
    if x[0] > 0:
        return w3 * x
    return x


with tf.GradientTape(persistent=True) as tape:
    if True:
        unused = w2 * x
    loss = tf.reduce_sum(w1 * x)
    for step in range(2):
        if step == 0:
            h = w4 * x
        else:
            h = x * 2.0
    loss2 = tf.reduce_sum(h)
    if x[0] > 5.0:
        loss2 = loss2 + w5

g = tape.gradient(loss, [w1, w2, w3])
assert g[1] is None and g[2] is None
assert tape.gradient(loss2, [w4, w5]) == [None, None]
"""


def test_tensorflow_what_is_not_an_untaken_branch(tmp_path):
    """A branch that ran (its result dropped), a function never called, a branch that ran in
    an earlier round of a loop, a name bound twice: the run cannot show an untaken branch."""
    pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")
    found = _first_causes(_run(tmp_path, TF_NOT_UNTAKEN))
    assert found == {
        (0, "w2"): ("no_path", 21),
        (0, "w3"): ("no_path", 7),
        (1, "w4"): ("no_path", 25),
        (1, "w5"): ("no_path", 10),
    }


TF_FUNCTION = """
import tensorflow as tf

FLAG = False
x = tf.constant([1.0, 2.0])
w1 = tf.Variable(1.0)
w2 = tf.Variable(2.0)


@tf.function
def step():
    with tf.GradientTape() as tape:
        if FLAG:
            h = w2 * x
        else:
            h = w1 * x
        loss = tf.reduce_sum(h)
    return tape.gradient(loss, [w1, w2])


assert step()[1] is None
"""


def test_tensorflow_python_if_in_a_traced_function(tmp_path):
    """A tf.function traces one side of a Python `if` on a Python value: graph ops carry
    lines only, and an `if` statement has its lines to itself."""
    pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")
    found = _first_causes(_run(tmp_path, TF_FUNCTION))
    assert found == {(0, "w2"): ("untaken_branch", 13)}


TORCH = """
import torch

USE_RELU = True
x = torch.tensor([1.0, -2.0])
w_relu = torch.tensor(0.5, requires_grad=True)
w_tanh = torch.tensor(0.5, requires_grad=True)
w_skip = torch.tensor(1.5, requires_grad=True)

if USE_RELU:
    h = torch.relu(w_relu * x)
else:
    h = torch.tanh(w_tanh * x)
loss = h.sum()
if loss > 100.0:
    loss = loss * w_skip
unused = w_skip * 2.0
loss.backward()
assert w_tanh.grad is None and w_skip.grad is None
"""


def test_pytorch_untaken_branch(tmp_path):
    """The same diagnosis reads a PyTorch script: the untaken `else`; a source also used by
    code that ran (and dropped) is no_path."""
    pytest.importorskip("torch", reason="the PyTorch run mode needs PyTorch")
    found = _first_causes(_run(tmp_path, TORCH))
    assert found[(0, "w_tanh")] == ("untaken_branch", 10)
    assert found[(0, "w_skip")] == ("untaken_branch", 15)
