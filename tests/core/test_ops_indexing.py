"""Index ops (gather, unsorted_segment_sum, segment_sum, one_hot): finite differences
(first and second order), check against SymPy, explain's `unselected` counts through the
Transport.ROUTE hook, and the integer index inputs of the lowerer.

Expected values come from finite differences, SymPy or counting; the values and gradients
against TensorFlow itself are in tests/data/tf_reference.json (tools/tf_cases_indexing.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import central_difference, invoke, run_json

from gradcli.api import problem_from_expression
from gradcli.core.autodiff import gradients
from gradcli.core.executor import run

RNG = np.random.default_rng(20260514)

# expressions over x of shape (3, 4); repeated indices on purpose
FD = [
    "gather(x, [2, 0, 2])",
    "gather(x, [[3, 3], [0, 1]], axis=1)",
    "gather(x, [[3, 3, 0], [1, 1, 1], [0, 2, 2]], axis=1, batch_dims=1)",
    "unsorted_segment_sum(x, [1, -1, 1], 3)",
    "unsorted_segment_sum(x, [[0, 2, 0, -1], [1, 1, 0, 2], [0, 0, 0, 0]], 4)",
    "segment_sum(x, [0, 0, 2])",
    "gather(unsorted_segment_sum(x, [1, 0, 1], 2), [1, 1, 0])",
]


def _loss(expr):
    return f"sum(sin({expr}) * {expr})"  # nonzero second derivative


def _value(expr, x):
    problem = problem_from_expression(_loss(expr), {"x": x}, wrt=[])
    return float(run(problem.graph, list(problem.outputs))[problem.outputs[0]])


def _grad_hvp(expr, x, v=None):
    problem = problem_from_expression(_loss(expr), {"x": x}, wrt=["x"])
    graph = problem.graph
    (g,) = gradients(graph, problem.outputs, problem.wrt).results
    targets, h = [g], None
    if v is not None:
        (h,) = gradients(graph, [g], problem.wrt, seeds=[v]).results
        targets.append(h)
    values = run(graph, targets)
    return np.asarray(values[g]), None if h is None else np.asarray(values[h])


@pytest.mark.parametrize("expr", FD)
def test_first_and_second_order_against_finite_differences(expr):
    x = RNG.uniform(-2, 2, size=(3, 4))
    v = RNG.uniform(-1, 1, size=x.shape)
    g, hv = _grad_hvp(expr, x, v)
    np.testing.assert_allclose(g, central_difference(lambda xn: _value(expr, xn), x), rtol=1e-6,
                               atol=1e-8, err_msg=expr)  # fmt: skip
    numeric = central_difference(lambda xn: float(np.sum(_grad_hvp(expr, xn)[0] * v)), x, eps=1e-5)
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7, err_msg=expr)


def test_repeated_indices_sum_their_gradients_and_the_others_get_zero():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    g, _ = _grad_only("sum(gather(x, [2, 0, 2, 2]) * [1, 2, 3, 4])", x)
    np.testing.assert_array_equal(g, [2.0, 0.0, 8.0, 0.0])


def _grad_only(expr, x):
    problem = problem_from_expression(expr, {"x": x}, wrt=["x"])
    (g,) = gradients(problem.graph, problem.outputs, problem.wrt).results
    return np.asarray(run(problem.graph, [g])[g]), None


def test_one_hot_values_and_no_gradient_to_indices():
    res = run_json("eval", "-e", "one_hot([0, 2, -1, 3], 3, on_value=5, off_value=-1)")
    assert res["outputs"]["f"]["value"] == [[5, -1, -1], [-1, -1, 5], [-1, -1, -1], [-1, -1, -1]]
    res = run_json(
        "eval", "-e", "sum(one_hot([1, 0], 2, axis=0) * x)", "--at", "x=[[1, 2], [3, 4]]"
    )
    assert res["outputs"]["f"]["value"] == 1 + 4  # transposed: column j is one_hot(indices[j])
    assert res["gradients"]["x"]["value"] == [[0, 1], [1, 0]]


# --- check: SymPy's derivative -----------------------------------------------------------------
CHECKS = [
    ("gather(x, [2, 0, 2]) ** 2", "x=[1.5, -2, 0.5]"),
    ("gather(x, [[1], [0]], axis=1, batch_dims=1) * x", "x=[[1, 2], [3, 4]]"),
    ("unsorted_segment_sum(x * x, [0, -1, 0], 2)", "x=[1.5, -2, 0.5]"),
    ("segment_sum(sin(x), [0, 0, 1])", "x=[1.5, -2, 0.5]"),
]


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_against_sympy(expr, at):
    res = invoke("check", "-e", f"sum({expr})", "--at", at, "--format", "json")
    assert res.code == 0, (res.stdout, res.stderr)
    assert "sympy" in res.stdout.lower()


# --- explain: elements never gathered get no gradient ------------------------------------------
EXPLAINED = [
    ("sum(gather(x, [2, 0, 2]))", "x=[1, 2, 3, 4]",
     "gather(x, [2, 0, 2]) uses 2 of 4 elements of x; the other 2 get no gradient"),
    ("sum(gather(x, [[1, 1]], axis=1))", "x=[[1, 2, 3], [4, 5, 6]]",
     "gather(x, [[1, 1]], axis=1) uses 2 of 6 elements of x; the other 4 get no gradient"),
    ("sum(unsorted_segment_sum(x, [0, -1, 1, -1], 2))", "x=[1, 2, 3, 4]",
     "unsorted_segment_sum(x, [0, -1, 1, -1], num_segments=2) uses 2 of 4 elements of x; "
     "the other 2 get no gradient"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at", "detail"), EXPLAINED)
def test_explain_counts_the_unselected_elements(expr, at, detail):
    doc = run_json("explain", "-e", expr, "--at", at, "--wrt", "x", code=1)
    (pair,) = doc["pairs"]
    assert pair["status"] == "partially_zero"
    (cause,) = pair["causes"]
    assert cause["kind"] == "unselected"
    assert cause["detail"] == detail


def test_explain_through_a_gather_of_a_partly_zero_gradient():
    # the gathered element 0 meets a zero weight: its zero is inherited, not unselected
    doc = run_json("explain", "-e", "sum(gather(x, [0, 1, 0]) * [0, 1, 0])", "--at",
                   "x=[1, 2, 3]", "--wrt", "x", code=1)  # fmt: skip
    kinds = sorted(c["kind"] for c in doc["pairs"][0]["causes"])
    assert kinds == ["mask", "unselected"]


def test_a_gather_using_every_element_is_connected():
    doc = run_json("explain", "-e", "sum(gather(x, [1, 0, 1]))", "--at", "x=[1, 2]", "--wrt", "x")
    assert doc["pairs"][0]["status"] == "connected"


# --- indices: integers, ranges, positioned errors -----------------------------------------------
@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("gather(x, [0, 3])", "gather: indices[1] = 3 is not in [0, 3)"),
        ("gather(x, [-1])", "gather: indices[0] = -1 is not in [0, 3)"),
        ("gather(x, [0.5])", "gather: indices must be integers"),
        ("gather(x, x)", "gather: indices must be int32 or int64, got float64"),
        ("gather(x, [true])", "gather: indices must be integers"),
        ("gather(x, [0], axis=1)", "gather: axis 1 is out of range for a tensor of rank 1"),
        ("unsorted_segment_sum(x, [0, 5, 1], 2)",
         "unsorted_segment_sum: indices[1] = 5 is not in [0, 2)"),
        ("unsorted_segment_sum(x, [0, 1], 2)", "segment_ids (2,) must match"),
        ("segment_sum(x, [1, 0, 0])", "segment ids are not increasing"),
        ("segment_sum(x, cast(x, 'int32'))", "segment_ids must be a literal or an input"),
        ("one_hot(x, 3)", "one_hot: indices must be int32 or int64"),
    ],
)  # fmt: skip
def test_bad_indices_are_positioned_errors(expr, message):
    res = invoke("eval", "-e", expr, "--at", "x=[1, 2, 3]")
    assert res.code == 2, res.stdout
    assert "<expr>:1:" in res.stderr and message in res.stderr, res.stderr


def test_indices_out_of_range_found_at_evaluation():
    # the indices are computed, so only the evaluation sees them
    res = invoke("eval", "-e", "gather(x, cast(x, 'int32'))", "--at", "x=[0, 1, 7]")
    assert res.code != 0
    assert "gather: indices[2] = 7 is not in [0, 3)" in res.stderr, res.stderr


def test_int_inputs_are_indices(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "inputs:\n  x: [1, 2, 3]\n  i: {value: [2, 2], dtype: int64}\n"
        "graph:\n  f: sum(gather(x, i) * [1, 10])\n"
    )
    doc = run_json("eval", str(spec))
    assert doc["outputs"]["f"]["value"] == 33
    assert doc["gradients"]["x"]["value"] == [0, 0, 11]
