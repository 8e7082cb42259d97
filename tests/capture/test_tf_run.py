"""`--run` for TensorFlow and Keras scripts: real TensorFlow runs the script, the capture
records what it did, the one diagnosis reads it. Each script in tests/data/tf_run/ is also
computed here with TensorFlow directly, and the values must be TensorFlow's own; snippets
of tests/data/tf_code/ the static reader reads are run too, and both ways must agree on
None-ness, cause kinds and lines (tests/data/tf_code_reference.json holds TensorFlow's
values for them). Skipped where TensorFlow is not installed."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # as the reference snippets ran
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
tf = pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")

DATA = Path(__file__).resolve().parent.parent / "data"
RUN = DATA / "tf_run"
CODE = DATA / "tf_code"
# the static reader's cause kinds and the run mode's: the same words both ways
KINDS = {
    "stop_gradient": "stop_gradient",
    "leaves_tape": "leaves_tape",
    "not_watched": "not_watched",
    "outside_tape": "outside_tape",
    "integer": "integer",
    "non_differentiable": "non_differentiable",
    "no_path": "no_path",
}


def run(path: Path, calls="all"):
    """(program, diagnosis, JSON document) of `gradcli explain --run path`, in process."""
    from gradcli.cli.run_commands import read_run
    from gradcli.views.run_report import document

    program, diagnosis = read_run(str(path), None, (), calls, 0, None)
    return program, diagnosis, document(program, diagnosis, with_pairs=True)


def pairs_of(doc, call: int) -> dict:
    return {p["input"]: p for p in doc["pairs"] if p["call"] == call}


def first_cause(doc, call: int, source: str) -> tuple:
    p = pairs_of(doc, call)[source]
    return p["status"], (p["causes"][0]["kind"], p["causes"][0]["line"]) if p["causes"] else None


def values(doc, call: int) -> list:
    return [g["value"] for g in doc["calls"][call]["gradients"]]


def same(got, expected) -> None:
    if expected is None:
        assert got is None
        return
    expected = np.asarray(expected)  # TensorFlow's dtype: the JSON writes its shortest repr
    np.testing.assert_array_equal(np.asarray(got, dtype=expected.dtype), expected)


def test_stop_gradient_is_detach_at_its_line():
    _, _, doc = run(RUN / "stop_gradient.py")
    assert doc["framework"] == "tf"
    assert doc["calls"][0]["kind"] == "gradient" and doc["calls"][0]["line"] == 12
    assert first_cause(doc, 0, "w") == ("unconnected", ("stop_gradient", 9))
    assert first_cause(doc, 0, "b") == ("connected", None)
    w, b, x = tf.Variable([1.0, 2.0]), tf.Variable(0.5), tf.constant([3.0, -1.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.stop_gradient(w * x) * b)
    gw, gb = tape.gradient(loss, [w, b])
    same(values(doc, 0)[0], None if gw is None else gw.numpy())
    same(values(doc, 0)[1], gb.numpy())


def test_the_reason_and_graph_name_tensorflows_kind_not_pytorchs():
    """The run mode's words are TensorFlow's in every view: the reason, and the cut edge
    graph --run draws (DOT), both say stop_gradient, never PyTorch's detach."""
    import subprocess
    import sys

    _, _, doc = run(RUN / "stop_gradient.py")
    assert pairs_of(doc, 0)["w"]["reason"].endswith("stop_gradient at line 9")
    dot = subprocess.run(
        [sys.executable, "-m", "gradcli", "graph", "--run", "stop_gradient.py", "--format", "dot"],
        cwd=RUN,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert dot.returncode == 0, dot.stderr
    assert 'label="stop_gradient"' in dot.stdout and "detach" not in dot.stdout


def test_numpy_round_trip_leaves_at_numpy():
    _, _, doc = run(RUN / "numpy_round_trip.py")
    p = pairs_of(doc, 0)["w"]
    assert p["status"] == "unconnected"
    kinds = [(c["kind"], c["line"]) for c in p["causes"]]
    assert kinds[0] == ("leaves_tape", 9)
    assert ("rewrapped", 10) in kinds and all(line != 11 for _, line in kinds)
    assert values(doc, 0) == [None]


def test_variable_replaced_by_a_tensor():
    _, _, doc = run(RUN / "variable_replaced.py")
    assert [c["line"] for c in doc["calls"]] == [10, 10]
    assert first_cause(doc, 0, "w") == ("connected", None)
    assert first_cause(doc, 1, "w") == ("unconnected", ("not_watched", 14))
    assert "tape.watch" in pairs_of(doc, 1)["w"]["causes"][0]["fix"]
    w, x = tf.Variable([1.0, -2.0]), tf.constant([0.5, 3.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((w * x - 1.0) ** 2)
    same(values(doc, 0)[0], tape.gradient(loss, w).numpy())
    assert values(doc, 1) == [None]


def test_unwatched_constant_at_its_line():
    _, _, doc = run(RUN / "unwatched_constant.py")
    status, cause = first_cause(doc, 0, "x")
    assert (status, cause) == ("unconnected", ("not_watched", 3))
    assert "not watched" in pairs_of(doc, 0)["x"]["causes"][0]["detail"]
    x, w = tf.constant([1.0, 2.0, 3.0]), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(w * x * x)
    gx, gw = tape.gradient(y, [x, w])
    assert gx is None
    same(values(doc, 0)[1], gw.numpy())


def test_integer_cast():
    _, _, doc = run(RUN / "integer_cast.py")
    assert first_cause(doc, 0, "w") == ("unconnected", ("integer", 7))


def test_healthy_exits_zero():
    from gradcli.cli.run_commands import status

    program, diagnosis, doc = run(RUN / "healthy.py")
    assert status(program, diagnosis) == 0
    w = tf.Variable([[0.5, -0.25], [1.0, 0.75]])
    b = tf.Variable([0.1, -0.1])
    x = tf.constant([[1.0, 2.0], [-1.0, 0.5]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.tanh(tf.matmul(x, w) + b) ** 2)
    gw, gb = tape.gradient(loss, [w, b])
    same(values(doc, 0)[0], gw.numpy())
    same(values(doc, 0)[1], gb.numpy())


def test_keras_fit_lambda_cause_at_the_lambda():
    _, _, doc = run(RUN / "keras_fit_lambda.py")
    call = doc["calls"][0]
    assert (call["kind"], call["line"], call["target"]) == ("fit", 15, "compiled loss")
    assert re.search(r"\[0\] sequential(_\d+)?/dense(_\d+)?/kernel", call["notes"][0])
    for i in (0, 1):
        status, cause = first_cause(doc, 0, f"model.trainable_variables[{i}]")
        assert (status, cause) == ("unconnected", ("stop_gradient", 8))
    assert first_cause(doc, 0, "model.trainable_variables[2]") == ("connected", None)


def test_keras_fit_values_are_tensorflows():
    """The traced step's gradients, read when it first ran, against the same step made by
    hand from the same initial weights (seeded as --seed 0 seeds)."""
    _, _, doc = run(RUN / "keras_fit_lambda.py")
    tf.keras.utils.set_random_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.Input(shape=(3,)),
            tf.keras.layers.Dense(2),
            tf.keras.layers.Lambda(lambda t: tf.stop_gradient(t)),
            tf.keras.layers.Dense(1),
        ]
    )
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=np.float32)
    y = np.array([[1.0], [0.0]], dtype=np.float32)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    for got, g in zip(values(doc, 0), grads):
        if g is None:
            assert got is None
        else:
            np.testing.assert_allclose(np.asarray(got), g.numpy(), rtol=1e-6)


def test_gan_two_tapes():
    _, _, doc = run(RUN / "gan_two_tapes.py")
    assert [c["line"] for c in doc["calls"]] == [15, 16]
    assert [c["target"] for c in doc["calls"]] == ["gen_loss", "disc_loss"]
    assert first_cause(doc, 0, "g_w") == ("unconnected", ("stop_gradient", 11))
    assert first_cause(doc, 1, "d_w") == ("connected", None)
    g_w = tf.Variable([[0.5, -0.3], [0.2, 0.8]])
    d_w = tf.Variable([[1.0], [-0.5]])
    noise = tf.constant([[0.1, 0.9], [-0.4, 0.3]])
    real = tf.constant([[1.0, 1.0], [0.5, 0.2]])
    with tf.GradientTape() as disc_tape:
        fake = tf.tanh(tf.matmul(noise, g_w))
        real_score = tf.sigmoid(tf.matmul(real, d_w))
        fake_score = tf.sigmoid(tf.matmul(tf.stop_gradient(fake), d_w))
        disc_loss = -tf.reduce_mean(tf.math.log(real_score) + tf.math.log(1.0 - fake_score))
    same(values(doc, 1)[0], disc_tape.gradient(disc_loss, [d_w])[0].numpy())


def test_tf_function_train_step():
    _, _, doc = run(RUN / "tf_function_step.py")
    call = doc["calls"][0]
    assert (call["kind"], call["line"]) == ("gradient", 15)
    assert first_cause(doc, 0, "w") == ("unconnected", ("non_differentiable", 13))
    w, b = tf.Variable([1.0, -1.0]), tf.Variable(0.0)
    x, y = tf.constant([[1.0, 2.0], [3.0, -1.0]]), tf.constant([1.0, 0.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.round(tf.linalg.matvec(x, w)) + b - y) ** 2)
    gw, gb = tape.gradient(loss, [w, b])
    assert gw is None
    same(values(doc, 0)[1], gb.numpy())


def test_calls_limit_stops_the_script():
    program, _, doc = run(RUN / "variable_replaced.py", calls=1)
    assert len(doc["calls"]) == 1 and program.stopped == "calls"


def test_where_trap_named_at_the_op_that_made_the_nan():
    """tf.where masks log's NaN out of the output, yet alpha's gradient is NaN (0 times the
    NaN factor of the product): non_finite at the log, masked at the where's line."""
    _, _, doc = run(RUN / "where_trap.py")
    p = pairs_of(doc, 0)["alpha"]
    assert p["status"] == "non_finite"
    assert [(c["kind"], c["line"]) for c in p["causes"]] == [("non_finite", 6)]
    assert "masked out by SelectV2 at line 7" in p["causes"][0]["detail"]
    x, alpha = tf.constant([1.5, -0.5]), tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.where(x > 0, alpha * tf.math.log(x), tf.zeros_like(x)))
    expected = tape.gradient(y, alpha).numpy()
    assert np.isnan(expected)
    assert values(doc, 0) == ["nan"]


def test_where_trap_with_two_births_names_both():
    """Two operations make NaN from finite inputs and both reach the product: each is named
    at its own line, neither is dropped."""
    _, _, doc = run(RUN / "where_trap_two_births.py")
    p = pairs_of(doc, 0)["alpha"]
    assert [(c["kind"], c["line"]) for c in p["causes"]] == [
        ("non_finite", 6),
        ("non_finite", 7),
    ]


def test_tf1_optimizer_calls_keep_their_kind_and_names():
    """A TF1 optimizer's minimize / compute_gradients are reported under their own call kind
    with the loss's and the var_list's names (the default var_list as the static reader
    names it), not as the tf.gradients they make."""
    import subprocess
    import sys

    script = "tf1_minimize_default_var_list.py"
    out = subprocess.run(
        [sys.executable, "-m", "gradcli", "eval", "--run", script, "--format", "json"],
        cwd=RUN,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 1, out.stderr  # u gets None: something to explain
    calls = json.loads(out.stdout)["calls"]
    assert [(c["kind"], c["line"], c["target"]) for c in calls] == [
        ("minimize", 8, "loss"),
        ("compute_gradients", 9, "loss"),
    ]
    names = [[g["name"] for g in c["gradients"]] for c in calls]
    assert names == [
        ["tf.compat.v1.trainable_variables()[0]", "tf.compat.v1.trainable_variables()[1]"],
        ["w"],
    ]
    assert [g["status"] for g in calls[0]["gradients"]] == ["connected", "unconnected"]
    assert calls[0]["notes"][0] == (
        "var_list defaults to tf.compat.v1.trainable_variables(), every trainable variable "
        "made so far, in creation order: [0] w:0, [1] u:0"
    )


# --- the static reader's snippets, read both ways ----------------------------------------
SNIPPETS = [
    "leaves_tape_numpy",
    "leaves_tape_float",
    "not_watched_constant",
    "stop_gradient_target",
    "integer_cast",
    "integer_variable",
    "outside_tape_loss_after",
    "watch_after_computation",
    "non_differentiable_argmax",
    "non_differentiable_round",
    "jacobian",
    "keras_fit_mse",
    "keras_unused_head",
    "tf_function_train_step",
    "assign_inside_tape",
    "variable_rebound_in_tape",
    "keras_train_step_compute_loss_override",
    "keras_train_step_gan",
    "keras_frozen_layer",
    "batch_jacobian",
    "data_tf_function_step",
]


def _reference() -> dict:
    doc = json.loads((DATA / "tf_code_reference.json").read_text())
    return {case["id"]: case for case in doc["cases"]}


@pytest.mark.slow
@pytest.mark.parametrize("name", SNIPPETS)
def test_snippet_both_ways(name):
    case = _reference()[name]
    _, _, doc = run(CODE / f"{name}.py")
    ref_calls = case["calls"]
    assert [c["line"] for c in doc["calls"]] == [c["line"] for c in ref_calls]
    for k, ref in enumerate(ref_calls):
        if ref["result"] is None:  # TensorFlow raised at this call
            assert doc["calls"][k]["error"]["message"].startswith(ref["raised"])
            continue
        got = doc["calls"][k]["gradients"]
        assert len(got) == len(ref["result"])
        for g, r in zip(got, ref["result"]):
            assert (g["value"] is None and g["status"] == "unconnected") == (r is None)
            if r is not None and case["values"] == "exact" and "value" in r:
                np.testing.assert_allclose(
                    np.asarray(g["value"], dtype=np.float64),
                    np.asarray(r["value"], dtype=np.float64),
                    rtol=1e-6,
                    atol=1e-7,
                )
    static = _static(CODE / f"{name}.py")
    for e in case["expect"]:
        error = doc["calls"][e["call"]]["error"]
        if error is not None:  # the causes of TensorFlow's error say it
            kinds = [(c["kind"], c["line"]) for c in error["causes"]]
            assert (KINDS[e["cause"]], e.get("line")) in kinds, (e, kinds)
            continue
        got = doc["calls"][e["call"]]["gradients"][e["index"]]["name"]
        pair = pairs_of(doc, e["call"])[got]
        if e["cause"] == "connected":
            assert pair["status"] != "unconnected", (e, pair)
            continue
        kinds = [(c["kind"], c["line"]) for c in pair["causes"]]
        expected = (KINDS[e["cause"]], e.get("line"))
        if e.get("line") is None:
            assert kinds and kinds[0][0] == expected[0], (e, kinds)
        else:
            assert expected in kinds, (e, kinds)
        if static is not None:  # where the static reader answers, it says the same
            spair = next(
                p
                for p in static["pairs"]
                if p["call"] == e["call"] and p["input"] in (got, e["source"])
            )
            assert KINDS[spair["causes"][0]["kind"]] == expected[0]


def _static(path: Path):
    """The static reader's JSON for a snippet (None when it refuses)."""
    from helpers import invoke

    result = invoke("explain", path, "--format", "json")
    try:
        return json.loads(result.stdout)
    except json.JSONDecodeError:
        return None


def test_a_weight_added_untrainable_is_not_watched_at_its_add_weight_line(tmp_path):
    """Keras creates the variable away from the build line; the cause is the add_weight
    call that made it trainable=False (its first line), whichever call built the layer."""
    script = tmp_path / "frozen.py"
    script.write_text(
        "import tensorflow as tf\n"
        "\n"
        "\n"
        "class Shift(tf.keras.layers.Layer):\n"
        "    def build(self, input_shape):\n"
        "        self.k = self.add_weight(name='k', shape=(), initializer='ones')\n"
        "        self.b = self.add_weight(\n"
        "            name='b', shape=(), initializer='zeros', trainable=False\n"
        "        )\n"
        "\n"
        "    def call(self, x):\n"
        "        return x * self.k + self.b\n"
        "\n"
        "\n"
        "layer = Shift()\n"
        "x = tf.constant([1.0, 2.0])\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = tf.reduce_sum(layer(x))\n"
        "print(tape.gradient(loss, [layer.k, layer.b]))\n"
    )
    _, _, doc = run(script)
    assert values(doc, 0) == [3.0, None]  # TensorFlow's: d/dk = 1 + 2; b is not watched
    assert first_cause(doc, 0, "layer.b") == ("unconnected", ("not_watched", 7))
    assert "add_weight(..., trainable=False)" in pairs_of(doc, 0)["layer.b"]["causes"][0]["detail"]
