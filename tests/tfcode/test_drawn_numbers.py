"""Numbers the static reader draws itself (gradcli/tfcode/drawn.py, cli/drawn_numbers.py): they
are never TensorFlow's (its random streams are not reproduced), so `eval` refuses to print a
gradient computed from them and `explain` refuses zeros or NaN found in them, at the draw's
line and naming --run; what does not depend on them (None-ness, cuts) is still answered, and
a draw the target was not computed from (values replaced by set_weights, another model)
changes nothing. No TensorFlow needed: these are refusals, or answers that use no draw."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import invoke

HEAD = """import numpy as np
import tensorflow as tf

"""
DENSE = (
    "model = tf.keras.Sequential([tf.keras.Input((2,)), "
    "tf.keras.layers.Dense(3, activation='relu'), tf.keras.layers.Dense(1)])\n"
)


def write(tmp_path, body: str):
    path = tmp_path / "prog.py"
    path.write_text(HEAD + body)
    return path


def refused_at(res, path, line: int, command: str) -> str:
    """The one stderr line of a refusal at `line`, naming --run; returns it."""
    assert res.code == 2 and res.stdout == "", (res.code, res.stdout)
    assert res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith(f"gradcli: error: {path}:{line}:"), res.stderr
    assert f"numbers drawn at random at line {line}" in res.stderr
    assert res.stderr.rstrip().endswith(f"gradcli {command} --run {path} (needs TensorFlow)")
    return res.stderr


def test_eval_refuses_gradients_of_a_randomly_initialised_model(tmp_path):
    path = write(tmp_path, DENSE + "x = tf.constant([[1.0, 2.0]])\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = tf.reduce_sum(model(x))\n"
                 "g = tape.gradient(loss, model.trainable_variables)\n")  # fmt: skip
    err = refused_at(invoke("eval", path, "--format", "json"), path, 4, "eval")
    assert "the gradients' numbers at line 8" in err


def test_set_weights_replaces_the_draws(tmp_path):
    path = write(tmp_path, DENSE + "model.set_weights([np.ones((2, 3)), np.zeros(3), "
                 "np.ones((3, 1)), np.zeros(1)])\n"
                 "x = tf.constant([[1.0, 2.0]])\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = tf.reduce_sum(model(x))\n"
                 "g = tape.gradient(loss, model.trainable_variables)\n")  # fmt: skip
    res = invoke("eval", path, "--format", "json", "--check", "off")
    assert res.code == 0, res.stderr
    kernel = json.loads(res.stdout)["calls"][0]["gradients"][0]["value"]
    assert kernel == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]  # d/dW of sum(relu(x W) 1): x, by hand


def test_a_draw_the_target_does_not_depend_on_changes_nothing(tmp_path):
    path = write(tmp_path, DENSE + "noise = np.random.normal(size=(3,))\n"
                 "v = tf.Variable(3.0)\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = v * v\n"
                 "g = tape.gradient(loss, v)\n")  # fmt: skip
    res = invoke("eval", path, "--format", "json", "--check", "off")
    assert res.code == 0, res.stderr
    assert json.loads(res.stdout)["calls"][0]["gradients"][0]["value"] == 6.0


@pytest.mark.parametrize(
    "line",
    [
        "x = tf.constant(np.random.rand(1, 2).astype('float32'))",  # copied into a constant
        "x = tf.Variable(tf.random.normal((1, 2)))",  # a variable made from a random op
        "x = tf.nn.dropout(tf.ones((1, 2)), 0.5)",  # a mask
    ],
)
def test_eval_follows_drawn_values_through_copies(tmp_path, line):
    path = write(tmp_path, line + "\nw = tf.Variable([[1.0], [2.0]])\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = tf.reduce_sum(tf.matmul(x, w))\n"
                 "g = tape.gradient(loss, w)\n")  # fmt: skip
    refused_at(invoke("eval", path, "--format", "json"), path, 4, "eval")


def test_a_scalar_draw_marks_every_later_call(tmp_path):
    # a Python number drawn at random is not followed: every later call is refused
    path = write(tmp_path, "s = np.random.rand()\nw = tf.Variable(2.0)\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = w * 3.0\n"
                 "g = tape.gradient(loss, w)\n")  # fmt: skip
    refused_at(invoke("eval", path), path, 4, "eval")


def test_unconnected_gradients_are_answered(tmp_path):
    # None does not depend on the numbers: eval and explain answer
    path = write(tmp_path, DENSE + "x = tf.constant([[1.0, 2.0]])\n"
                 "out = model(x)\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = tf.reduce_sum(out)\n"
                 "g = tape.gradient(loss, model.trainable_variables)\n")  # fmt: skip
    res = invoke("eval", path, "--format", "json", "--check", "off")
    assert res.code == 1, res.stderr  # None gradients: exit 1
    grads = json.loads(res.stdout)["calls"][0]["gradients"]
    assert [g["value"] for g in grads] == [None] * 4
    res = invoke("explain", path, "--format", "json")
    assert res.code == 1
    kinds = {(c["kind"], c["line"]) for p in json.loads(res.stdout)["pairs"] for c in p["causes"]}
    assert kinds == {("outside_tape", 6)}


def test_explain_refuses_zeros_found_in_drawn_numbers(tmp_path):
    # a ReLU of random pre-activations: which units are dead is gradcli's draw, not Keras's
    path = write(tmp_path, DENSE + "x = tf.constant([[1.0, -2.0], [0.5, 0.25], [-1.0, 3.0]])\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = tf.reduce_sum(model(x))\n"
                 "g = tape.gradient(loss, model.trainable_variables)\n")  # fmt: skip
    res = invoke("explain", path, "--format", "json")
    if res.code == 2:
        err = refused_at(res, path, 4, "explain")
        assert "zeros or NaN at line 8" in err
        return
    # no zero found in gradcli's numbers: none claimed either, the note says why
    doc = json.loads(res.stdout)
    assert res.code == 0
    assert all(p["zero_elements"] is None for p in doc["pairs"])
    assert any("numbers drawn at random at line 4" in n for n in doc["calls"][0]["notes"])


def test_weights_give_the_initial_values(tmp_path):
    path = write(tmp_path, DENSE + "x = tf.constant([[1.0, 2.0]])\n"
                 "with tf.GradientTape() as tape:\n"
                 "    loss = tf.reduce_sum(model(x))\n"
                 "g = tape.gradient(loss, model.trainable_variables)\n")  # fmt: skip
    weights = tmp_path / "w.npz"
    arrays = {
        "sequential/dense/kernel": np.ones((2, 3)),
        "sequential/dense/bias": np.zeros(3),
        "sequential/dense_1/kernel": np.ones((3, 1)),
        "sequential/dense_1/bias": np.zeros(1),
    }
    np.savez(weights, **arrays)
    res = invoke("eval", path, "--weights", weights, "--format", "json", "--check", "off")
    assert res.code == 0, res.stderr
    kernel = json.loads(res.stdout)["calls"][0]["gradients"][0]["value"]
    assert kernel == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]


@pytest.mark.parametrize("sign", ["<", ">"])
def test_a_branch_decided_by_drawn_numbers_is_not_claimed(tmp_path, sign):
    # which branch runs is decided by gradcli's numbers: whichever it takes, neither the
    # gradient nor the untaken branch is given as TensorFlow's
    path = write(tmp_path, "w = tf.Variable(tf.random.normal((3,)))\nv = tf.Variable(2.0)\n"
                 "with tf.GradientTape() as tape:\n"
                 f"    if tf.reduce_sum(w) {sign} 0:\n"
                 "        loss = v * 2.0\n"
                 "    else:\n"
                 "        loss = tf.reduce_sum(w) * 2.0\n"
                 "g = tape.gradient(loss, [v, w])\n")  # fmt: skip
    for command in ("eval", "explain"):
        res = invoke(command, path, "--format", "json")
        assert res.code == 2 and "numbers drawn at random" in res.stderr, (command, res)
        assert res.stderr.rstrip().endswith(f"gradcli {command} --run {path} (needs TensorFlow)")
