"""The static reader is never wrong: each construct a fresh thread caught it out on is read
exactly as TensorFlow 2.21 does, or refused at its line with how to read it with --run.

The snippets are tests/data/tf_never_wrong/*.py; what TensorFlow 2.21 did with each one
(every gradient call's result, in order) was recorded once by tools/tf_code_reference.py
(`--snippets tests/data/tf_never_wrong --out tests/data/tf_never_wrong_reference.json`), so
the expected values are TensorFlow's, never gradcli's. READ cases must give TensorFlow's
calls, values and the causes their `# expect:` lines name; REFUSED cases must be refused at
the line given, naming the construct and `gradcli explain --run FILE` (the recorded run shows
what TensorFlow does there, which the reader would not have matched).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from tf_compare import CODE_KINDS, agree

from gradcli.explain.analysis import explain_sum
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program

DATA = Path(__file__).parents[1] / "data"
SNIPPETS = DATA / "tf_never_wrong"
DOC = json.loads((DATA / "tf_never_wrong_reference.json").read_text())
CASES = {c["id"]: c for c in DOC["cases"]}

# the class of the issue each case stands for -> read exactly
READ = {
    "ops_numpy_scalar_minus_variable": "operators: NumPy scalar meets a Variable",
    "ops_numpy_meets_tensor": "operators: NumPy arrays and scalars meet a tensor (dtypes)",
    "ops_python_list_meets_tensor": "operators: a Python list meets a tensor",
    "ops_numpy_meets_int_tensor": "operators: NumPy floats meet an int32 tensor (truncated)",
    "jacobian_unconnected": "jacobian None, batch_jacobian zeros",
    "optimizer_sgd_writes_inf": "optimizer updates between calls (one writes -inf)",
    "optimizer_adam_sgd_steps": "optimizer updates between calls (Adam, SGD Nesterov)",
    "optimizer_adam_amsgrad_float64": "optimizer updates between calls (Adam amsgrad float64)",
    "tf_where_one_argument": "TF errors TF does not raise: one-argument tf.where",
    "keras_rnn_cell_state_size_property": "TF errors TF does not raise: @property state_size",
    "custom_gradient_nested": "TF errors TF does not raise: nested custom_gradient",
    "keras_lambda_stop_gradient_fit": "wrong lines: a cut inside a Lambda",
    "numpy_into_variable": "wrong lines: the value left TensorFlow through .numpy()",
    "tf_function_python_argument_retraces": "tf.function: retracing on Python arguments",
    "tf_function_pure_repeat": "tf.function: a traced graph run again",
    # constructs real threads use, and the fixes of the static thread harness
    # (tests/tfcode/test_static_threads.py)
    "ops_list_of_tensors_packed": "operators: a list holding tensors is packed (tf.stack)",
    "numpy_mean_of_tensor_list": "wrong lines: NumPy reading a list of tensors leaves there",
    "function_ignores_argument": "wrong lines: no_path at the call that drops its argument",
    "keras_predict_under_tape": "wrong lines: model.predict's input leaves the tape there",
    "keras_functional_two_outputs": "Keras: a functional model with two heads, one used",
    "keras_trainable_false_compile": "Keras: model.trainable = False, then compile",
    "variable_created_in_tape": "a tf.Variable made inside the tape",
    "persistent_tape_twice": "a persistent tape asked twice",
    "while_loop_reads_variable": "an eager tf.while_loop reading a variable",
    "py_function_gradient": "an eager tf.py_function's ops are recorded",
    "gather_variable_repeated": "tf.gather of a variable with repeated int indices",
    "keras_sequential_add_input_shape": "Keras: Sequential.add builds with input_shape=",
    "keras_assign_in_call": "wrong lines: a write into a float64 weight inside call",
}
# case -> (line, what the refusal names)
REFUSED = {
    "tf_function_dataset_loop_outer_tape": (14, "a loop over a dataset inside @tf.function"),
    "tf_function_side_effect_counter": (12, "a Python side effect in @tf.function step"),
    "tf_function_outside_value_changed": (20, "after 'scale', which it reads, changed"),
    "reduce_mean_integer": (8, "on int32 tensors"),
    "tf_gradients_in_tf_function": (11, "tf.gradients inside grad"),
    "optimizer_rmsprop_steps": (11, "a gradient call after an optimizer updated the variables"),
    "subnormal_norm": (10, "is subnormal (1e-38)"),
    "tf1_while_loop_gradient_in_body": (12, "a gradient call inside a tf.while_loop body"),
    "tf_function_python_list_side_effect": (10, "a Python side effect in @tf.function step"),
    "watch_python_float": (7, "tape.watch of a float"),
    "ragged_reduce": (7, "tf.RaggedTensor.from_row_lengths"),
    "sparse_dense_matmul": (6, "tf.sparse.SparseTensor"),
    "segment_ops": (9, "tf.math.unsorted_segment_mean"),
    "keras_unconnected_zero_variable": (10, "unconnected_gradients=ZERO for a Keras variable"),
    "tf_function_output_sibling": (17, "made inside a call of @tf.function forward"),
    "tf_function_kept_tensor_used": (19, "a tensor made inside a call of @tf.function f"),
    "tf_function_outer_tape_watch": (9, "tape.watch inside @tf.function f of a tape made"),
    "jacobian_empty_target": (9, "tape.jacobian of an empty target"),
}


def read(case_id: str):
    path = SNIPPETS / f"{case_id}.py"
    return read_program(path.read_bytes(), str(path))


def test_every_snippet_is_listed_once():
    assert not set(READ) & set(REFUSED)
    assert sorted([*READ, *REFUSED]) == sorted(CASES)
    assert DOC["tensorflow"] == "2.21.0"


@pytest.mark.parametrize("case_id", sorted(READ))
def test_read_exactly_as_tensorflow(case_id):
    case = CASES[case_id]
    program = read(case_id)
    assert program.error is None and "error" not in case
    assert len(program.calls) == len(case["calls"]), [c.line for c in program.calls]
    for k, (call, ref) in enumerate(zip(program.calls, case["calls"])):
        assert call.line == ref["line"], k
        assert call.error is None, (k, call.error)
        assert call.sources == [ast.unparse(ast.parse(s, mode="eval")) for s in ref["sources"]]
        got = list(call.evaluation.gradients.values())
        assert len(got) == len(ref["result"]), k
        for name, g, want in zip(call.sources, got, ref["result"]):
            exact = case["values"] == "exact" and not (want or {}).get("symbolic")
            problem = agree(g, want, exact)
            assert problem is None, f"call {k} source {name}: {problem}"


@pytest.mark.parametrize("case_id", sorted(c for c in READ if CASES[c]["expect"]))
def test_the_cause_is_at_its_line(case_id):
    program = read(case_id)
    for e in CASES[case_id]["expect"]:
        call = program.calls[e["call"]]
        source = ast.unparse(ast.parse(e["source"], mode="eval"))
        pair = explain_sum(call.problem, call.problem.wrt)[
            call.problem.wrt[call.sources.index(source)]
        ]
        kinds = [c.kind for c in pair.causes if c.kind in CODE_KINDS]
        kind = kinds[0] if kinds else "connected"
        assert kind == e["cause"], (source, pair.reason)
        if e.get("line") is not None:
            assert next(c.line for c in pair.causes if c.kind == kind) == e["line"], pair.reason


@pytest.mark.parametrize("case_id", sorted(REFUSED))
def test_refused_at_its_line_naming_run(case_id):
    line, construct = REFUSED[case_id]
    with pytest.raises(GradcliError) as exc:
        read(case_id)
    assert exc.value.pos.line == line, exc.value.message
    assert construct in exc.value.message
    path = SNIPPETS / f"{case_id}.py"
    assert exc.value.message.endswith(
        f"read it by running it: gradcli explain --run {path} (needs TensorFlow)"
    )
    case = CASES[case_id]
    assert case["calls"] or "error" in case, "the recorded run shows what TensorFlow does there"


FIT = """import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=2, verbose=0)
v = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    other = v * v
    out = tf.reduce_sum(model(np.ones((1, 2))))
g = tape.gradient(other, v)
"""


def test_after_fit_a_call_that_reads_no_trained_weight_is_read():
    program = read_program(FIT.encode(), "t.py")
    assert [c.line for c in program.calls] == [6, 11]


def test_after_fit_a_call_that_reads_the_trained_weights_is_refused():
    text = FIT + "h = tape.gradient(out, model.trainable_variables)\n"
    with pytest.raises(GradcliError) as exc:
        read_program(text.encode(), "t.py")
    assert exc.value.pos.line == 12
    assert "after an optimizer updated the variables at line 6" in exc.value.message
    assert exc.value.message.endswith("gradcli explain --run t.py (needs TensorFlow)")


def test_a_side_effect_in_a_dataset_loop_inside_tf_function_is_refused():
    text = """import tensorflow as tf

ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])
seen = []


@tf.function
def f():
    for x in ds:
        seen.append(x)
    return tf.constant(0.0)


f()
"""
    with pytest.raises(GradcliError) as exc:
        read_program(text.encode(), "t.py")
    assert exc.value.pos.line == 10
    assert "a Python side effect in a loop over a dataset inside @tf.function" in str(exc.value)


def test_a_value_copied_from_stale_weights_is_stale_too():
    text = """import tensorflow as tf

w = tf.Variable([1.0, 2.0])
u = tf.Variable([0.0, 0.0])
opt = tf.keras.optimizers.RMSprop(0.1)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * w)
opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
u.assign(w * 2.0)
with tf.GradientTape() as tape2:
    tape2.watch(u)
    loss2 = tf.reduce_sum(u * u)
g = tape2.gradient(loss2, u)
"""
    with pytest.raises(GradcliError) as exc:
        read_program(text.encode(), "t.py")
    assert exc.value.pos.line == 13
    assert "after an optimizer updated the variables at line 8" in exc.value.message
