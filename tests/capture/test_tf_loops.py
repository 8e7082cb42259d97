"""`--run` inside loops and tf.functions: tf.while_loop (eager and traced), tf.map_fn,
tf.scan, AutoGraph's `for i in tf.range(n)`, Keras's GRU and LSTM (eager, in a tf.function,
in `fit`), and tf.functions called under a tape outside them (one op for TensorFlow's
eager tape, whose body the run mode reads by its data flow only).

Every script runs twice in one worker process (one TensorFlow start for all): plainly, for
TensorFlow's printed gradients (the truth each expectation is checked against), then under
the capture. The expected cause kind and line come from reading each script by hand: a cut
is named only where every path inside the body passes an op whose gradient is None (then
TensorFlow's gradient through the loop is zero, or None, whatever the values); a zero or
NaN made by values inside a loop is `unknown beyond line N` (N: the loop's line, or the
tf.function call's), never a guess; no TensorFlow function name is ever shown.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from helpers import worker_documents

pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "data" / "tf_loops"

# per script of tests/data/tf_loops/: (TensorFlow's printed gradient, a substring of the plain
# run's output; per source: status, cause kind, cause line, words the cause's detail must hold)
CASES = {
    # the repro: tf.round inside the body is the only way from w to the output; the
    # while loop's gradient turns its None into zeros
    "while_round_in_function": (
        "tf.Tensor(0.0,",
        {"w": ("zero", "non_differentiable", 7, "tf.round")},
    ),
    "while_round_tape_inside": (
        "tf.Tensor(0.0,",
        {"w": ("zero", "non_differentiable", 8, "tf.round")},
    ),
    # eager: the loop runs as Python, each op seen with its value; tf.round gives None
    "while_round_eager": ("None", {"w": ("unconnected", "non_differentiable", 6, "tf.round")}),
    # relu(a * w - 10) is dead for these values, but values inside iterations are not read
    "while_dead_relu": ("tf.Tensor(0.0,", {"w": ("zero", "unknown", 7, "unknown beyond line 7")}),
    # log(1 - 10) is NaN, made inside the body: where exactly is not read
    "while_nan_in_body": ("tf.Tensor(nan,", {"w": ("non_finite", "unknown", 7, "Log (line 7)")}),
    # map_fn and scan run a while loop over a TensorList
    "map_fn_round": ("tf.Tensor([0. 0. 0.]", {"w": ("zero", "non_differentiable", 5, "tf.round")}),
    "scan_floor": ("tf.Tensor(0.0,", {"w": ("zero", "non_differentiable", 6, "tf.math.floor")}),
    # AutoGraph's for over tf.range is a while loop at the for statement's line
    "autograph_for_range": ("tf.Tensor(0.0,", {"w": ("zero", "unknown", 6, "Relu (line 7)")}),
    # a TensorArray written in an AutoGraph loop, stacked after it; tf.foldl's body
    "tensor_array_ceil": (
        "tf.Tensor(0.0,",
        {"w": ("zero", "non_differentiable", 7, "tf.math.ceil")},
    ),
    "foldl_stop_gradient": (
        "tf.Tensor([0. 0.]",
        {"w": ("zero", "stop_gradient", 5, "tf.stop_gradient")},
    ),
    # the fix an unknown inside a loop suggests: run the functions eagerly, and the loop's
    # values are read op by op (the dead relu is then named)
    "while_dead_relu_run_eagerly": ("tf.Tensor(0.0,", {"w": ("zero", "inactive", 8, "Relu")}),
    # a tf.function called eagerly under the tape: one op to TensorFlow's tape, read inside
    "function_round": ("None", {"w": ("unconnected", "non_differentiable", 5, "tf.round")}),
    "function_dead_relu": ("tf.Tensor(-0.0,", {"w": ("zero", "unknown", 7, "Relu (line 5)")}),
    # a tf.function called inside the loop body (a PartitionedCall no op callback sees):
    # through g the gradient is carried (and zeroed by values), so tf.round is not the cause
    "nested_function_in_body": (
        "tf.Tensor(0.0,",
        {"w": ("zero", "unknown", 10, "unknown beyond line 10")},
    ),
    # Keras's recurrent layers: eager, the loop runs op by op (the dead relu after it is
    # read with its values); in fit, the cut after the LSTM is named, not its while loop
    "gru_eager_dead_relu": (
        "[0.0, 0.0, 0.0]",
        {f"layer.trainable_variables[{k}]": ("zero", "inactive", 7, "Relu") for k in range(3)},
    ),
    "lstm_function_dead_relu": (
        "0.0",
        {"layer.trainable_variables[0]": ("zero", "inactive", 10, "Relu")},
    ),
    "lstm_output_dropped": (
        "None",
        {"lstm.trainable_variables[0]": ("unconnected", "no_path", 7, "")},
    ),
    # Keras's own warning says the LSTM's weights get no gradient: the round in the Lambda
    # after the LSTM cuts them, not the LSTM's loop
    "fit_lstm_round": (
        "Gradients do not exist for variables ['lstm/lstm_cell/kernel', "
        "'lstm/lstm_cell/recurrent_kernel', 'lstm/lstm_cell/bias'] when",
        {
            f"model.trainable_variables[{k}]": ("unconnected", "non_differentiable", 7, "tf.round")
            for k in range(3)
        },
    ),
    # a SimpleRNN whose relu units are all dead (bias -100): SGD leaves its weights as they
    # were; traced in fit, the zeros are born inside the loop (unknown beyond fit's line,
    # where Keras's step ran); with run_eagerly=True the relu is named
    "fit_simple_rnn_dead_relu": (
        "unchanged [True, True, True]",
        {
            f"model.trainable_variables[{k}]": ("zero", "unknown", 10, "Relu (line 10)")
            for k in range(3)
        },
    ),
    "fit_simple_rnn_dead_relu_run_eagerly": (
        "unchanged [True, True, True]",
        {f"model.trainable_variables[{k}]": ("zero", "inactive", 10, "Relu") for k in range(3)},
    ),
}

WORKER = """
import contextlib, io, json, runpy, sys
from pathlib import Path
import tensorflow as tf
from gradcli.cli.run_commands import read_run
from gradcli.views.format import dumps
from gradcli.views.run_report import document
docs = {}
for name, path in json.loads(sys.argv[1]).items():
    out = io.StringIO()
    try:
        tf.keras.backend.clear_session()  # Keras's layer names start afresh per script
        tf.config.run_functions_eagerly(False)  # (a script before may have set it)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            runpy.run_path(path, run_name="__main__")
        tf.keras.backend.clear_session()
        tf.config.run_functions_eagerly(False)
        program, diagnosis = read_run(path, None, (), "all", 0, 120)
        doc = json.loads(dumps(document(program, diagnosis, with_pairs=True)))
    except BaseException as exc:
        doc = {"failed": f"{type(exc).__name__}: {exc}"}
    doc["plain"] = out.getvalue()
    docs[name] = doc
print("\\x00" + json.dumps(docs))
"""


@cache
def documents(tmp: str) -> dict:
    """The run document and plain output of every case, made in one TensorFlow process."""
    paths = {name: str(SCRIPTS / f"{name}.py") for name in CASES}
    return worker_documents(WORKER, paths, 900, cwd=ROOT)


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    return documents(str(tmp_path_factory.mktemp("loops")))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_loop_or_function_is_read_inside(docs, name):
    truth, expected = CASES[name]
    doc = docs[name]
    assert "failed" not in doc, doc.get("failed")
    assert truth in doc["plain"], doc["plain"]  # TensorFlow's own gradient
    pairs = {p["input"]: p for p in doc["pairs"]}
    for source, (status, kind, line, words) in expected.items():
        pair = pairs[source]
        assert pair["status"] == status, pair
        cause = pair["causes"][0]
        assert (cause["kind"], cause["line"]) == (kind, line), cause
        assert words in cause["detail"], cause["detail"]
    text = json.dumps(doc["pairs"])
    assert "__forward" not in text and "__inference" not in text and "__backward" not in text


@pytest.mark.slow
def test_the_gradients_are_tensorflows(docs):
    # the run's gradient values are the plain run's (the script printed them)
    doc = docs["while_round_in_function"]
    assert [g["value"] for g in doc["calls"][0]["gradients"]] == [0.0]
    doc = docs["map_fn_round"]
    assert [g["value"] for g in doc["calls"][0]["gradients"]] == [[0.0, 0.0, 0.0]]
    doc = docs["function_round"]
    assert [g["value"] for g in doc["calls"][0]["gradients"]] == [None]
