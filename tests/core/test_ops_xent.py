"""Cross entropies, Keras' losses and norms: finite differences (first and second order),
hand-derived closed forms and conventions, check against SymPy and finite differences,
explain's causes, errors.

TensorFlow's own values, gradients and Hessians for these ops are in
tests/data/tf_reference.json (tools/tf_cases_xent.py); expected values here come from
finite differences, SymPy or derivations by hand.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import central_difference, invoke, run_json, value_grad_hvp

from gradcli.api import problem_from_expression
from gradcli.core.autodiff import gradients
from gradcli.core.executor import run

RNG = np.random.default_rng(20260601)
X = RNG.uniform(-3, 3, size=(3, 4))
Z = RNG.uniform(0.05, 0.95, size=(3, 4))
ROWS = Z / Z.sum(axis=1, keepdims=True)  # labels whose rows sum to 1
COLS = Z / Z.sum(axis=0, keepdims=True)
F32_EPS = np.float32(1e-7)


def value(expr: str, at: dict):
    problem = problem_from_expression(expr, at, wrt=[])
    return run(problem.graph, list(problem.outputs))[problem.outputs[0]]


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(z, axis=-1):
    s = z - z.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


# --- finite differences, first and second order ----------------------------------------------
FD = {
    "softmax_cross_entropy(r, x)": {"r": ROWS},
    "softmax_cross_entropy(c, x, axis=0)": {"c": COLS},
    "softmax_cross_entropy(x * 0.25 + 0.5, z * 3)": {"z": Z},  # labels: -log_softmax
    "sparse_softmax_cross_entropy([0, 3, 1], x)": {},
    "binary_crossentropy(z, sigmoid(x))": {"z": Z},
    "binary_crossentropy(z, x, from_logits=true, label_smoothing=0.1)": {"z": Z},
    "binary_crossentropy(sigmoid(x), z, axis=0, label_smoothing=0.3)": {"z": Z},
    "binary_crossentropy(x, x, from_logits=true, label_smoothing=0.2)": {},  # one tensor twice
    "categorical_crossentropy(r, softmax(x))": {"r": ROWS},
    "categorical_crossentropy(r, sigmoid(x), label_smoothing=0.2)": {"r": ROWS},
    "categorical_crossentropy(r, x, from_logits=true, label_smoothing=0.1)": {"r": ROWS},
    "categorical_crossentropy(softmax(x, axis=0), z, axis=0)": {"z": Z},
    "sparse_categorical_crossentropy([0, 3, 1], sigmoid(x))": {},
    "sparse_categorical_crossentropy([0, 3, 1], x, from_logits=true)": {},
    "mean_squared_error(z, x) + mean_absolute_error(x, z)": {"z": Z},
    "mean_squared_error(x[:, 0:1], z) * mean_absolute_error(x[:, 0], z[:, 0:1])": {"z": Z},
    "norm(x) + sum(norm(x, axis=1)) * sum(norm(x, ord=1, axis=0))": {},
    "norm(x, ord=inf, axis=1) * norm(x, ord=3, axis=1) + norm(x, ord=0.5)": {},
    "norm(x, ord='fro', axis=[0, 1]) + norm(x, ord=1, axis=[0, 1])": {},
    "norm(x, ord=inf, axis=[1, 0], keepdims=true) * x": {},
    "l2_normalize(x, axis=1) * z + l2_normalize(x) * z": {"z": Z},
    "l2_normalize(x * 1e-7, axis=0, epsilon=1e-12) * z": {"z": Z},  # below epsilon
    "logmeanexp(x) + logmeanexp(x * 2, axis=1, keepdims=true)": {},
}


@pytest.mark.parametrize("expr", sorted(FD))
def test_first_and_second_order_against_finite_differences(expr):
    at = {"x": X, **FD[expr]}
    w = RNG.uniform(0.5, 1.5, size=np.shape(value(expr, at)))
    loss, at = f"sum(({expr}) * w)", {**at, "w": w}
    v = RNG.uniform(-1, 1, size=X.shape)
    _, g, hv = value_grad_hvp(loss, at, "x", v)

    def grad_dot_v(x):
        return float(np.sum(value_grad_hvp(loss, {**at, "x": x}, "x")[1] * v))

    fd = central_difference(lambda x: value_grad_hvp(loss, {**at, "x": x}, "x")[0], X)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8, err_msg=expr)
    np.testing.assert_allclose(hv, central_difference(grad_dot_v, X, 1e-5), rtol=1e-5, atol=1e-7)


# --- softmax cross entropy: the kernel's conventions, derived by hand ------------------------
def test_softmax_cross_entropy_gradient_is_softmax_minus_labels_even_unnormalized():
    # TensorFlow's kernel returns softmax - labels, whatever the labels sum to; the
    # derivative of the loss would be sum(labels) * softmax - labels
    z = np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]])
    lab = np.array([[0.2, 0.3, 0.9], [2.0, 0.0, 0.0]])
    at = ("--at", f"l={json.dumps(lab.tolist())}", "--at", f"z={json.dumps(z.tolist())}")
    doc = run_json("eval", "-e", "sum(softmax_cross_entropy(l, z))", *at)
    assert doc["check"]["ok"], doc["check"]  # the references take the same convention
    np.testing.assert_allclose(doc["outputs"]["f"]["value"], -np.sum(lab * log_softmax(z)))
    g = doc["gradients"]
    np.testing.assert_allclose(g["z"]["value"], softmax(z) - lab, rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(g["l"]["value"], -log_softmax(z), rtol=1e-15)


def _second_order(expr: str, at: dict, of: str, by: str, v):
    """d <grad_of, v> / d by, built with gradcli's own autodiff (a node id, ZERO_GRAD or None)."""
    wrt = list(dict.fromkeys([of, by]))
    problem = problem_from_expression(expr, at, wrt=wrt)
    graph = problem.graph
    g = gradients(graph, problem.outputs, problem.wrt).results[wrt.index(of)]
    (h,) = gradients(graph, [g], [problem.wrt[wrt.index(by)]], seeds=[v]).results
    return h if not isinstance(h, int) else np.asarray(run(graph, [h])[h])


def test_tensorflows_hessian_is_not_symmetric():
    # d/dl of the gradient to z is 0 (TensorFlow passes zeros through -log_softmax; the
    # true derivative is -v), while d/dz of the gradient to l, -log_softmax(z), is
    # -(v - sum(v) * softmax(z))
    z = np.array([[1.0, 2.0, 3.0], [0.5, -0.5, 0.0]])
    lab = np.array([[0.25, 0.25, 0.5], [1.0, 0.0, 0.0]])
    v = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])
    at = {"l": lab, "z": z}
    cross = _second_order("sum(softmax_cross_entropy(l, z))", at, "z", "l", v)
    assert np.array_equal(cross, np.zeros_like(z))
    other = _second_order("sum(softmax_cross_entropy(l, z))", at, "l", "z", v)
    s = softmax(z)
    np.testing.assert_allclose(other, -(v - v.sum(1, keepdims=True) * s), rtol=1e-14)
    zz = _second_order("sum(softmax_cross_entropy(l, z))", at, "z", "z", v)
    np.testing.assert_allclose(zz, (v - (v * s).sum(1, keepdims=True)) * s, rtol=1e-14)


def test_sparse_softmax_cross_entropy_closed_form():
    z = np.array([[1.0, 2.0, 3.0], [1e3, -1e3, 0.0], [2.0, 2.0, -1.0]])
    out = value("sparse_softmax_cross_entropy([2, 1, 0], z)", {"z": z})
    np.testing.assert_allclose(out, -log_softmax(z)[[0, 1, 2], [2, 1, 0]], rtol=1e-15)
    _, g, _ = value_grad_hvp("sum(sparse_softmax_cross_entropy([2, 1, 0], z))", {"z": z}, "z")
    np.testing.assert_allclose(g, softmax(z) - np.eye(3)[[2, 1, 0]], rtol=1e-15, atol=1e-300)


def test_huge_logits_do_not_overflow():
    z = np.array([[1e3, -1e3, 0.0], [-1e3, -1e3, -1e3]])
    lab = np.array([[0.0, 1.0, 0.0], [0.5, 0.25, 0.25]])
    out = value("softmax_cross_entropy(l, z)", {"l": lab, "z": z})
    assert out.tolist() == [2000.0, np.log(3.0)]


# --- Keras' losses: the clip, float32 epsilon, label smoothing, ranks ------------------------
def test_binary_crossentropy_clips_probabilities():
    # y_pred 0 and 1 are clipped to 1e-7 and 1 - 1e-7 (gradient 0); 1e-7 itself is at the
    # bound, where clip passes the gradient: -t / p / n
    t = np.array([[0.0, 1.0, 1.0]])
    p = np.array([[0.0, 1.0, 1e-7]])
    out, g, _ = value_grad_hvp("sum(binary_crossentropy(t, p))", {"t": t, "p": p}, "p")
    lo, hi = 1e-7, 1.0 - 1e-7
    expected = -(np.log(1 - lo) + np.log(hi) + np.log(lo)) / 3
    np.testing.assert_allclose(out, expected, rtol=1e-15)
    np.testing.assert_allclose(g, [[0.0, 0.0, -1.0 / 1e-7 / 3]], rtol=1e-15)


def test_float32_uses_float32_epsilon_arithmetic():
    doc = run_json("eval", "-", input=(
        "inputs:\n  t: {value: [[0.0, 1.0]], dtype: float32}\n"
        "  p: {value: [[1.0, 0.0]], dtype: float32}\ngraph:\n  f: binary_crossentropy(t, p)\n"
    ), code=0)  # fmt: skip
    hi = np.float32(1.0) - np.float32(1.0 - 1e-7)  # 1 - float32(0.9999999) = 1.19e-7
    expected = -(np.log(hi) + np.log(F32_EPS)) / np.float32(2)
    assert doc["outputs"]["f"]["dtype"] == "float32"
    np.testing.assert_allclose(doc["outputs"]["f"]["value"], [expected], rtol=1e-6)


def test_label_smoothing_by_hand():
    t = np.array([[0.0, 1.0, 0.0]])
    p = np.array([[0.2, 0.5, 0.3]])
    at = {"t": t, "p": p}
    bce = value("binary_crossentropy(t, p, label_smoothing=0.2)", at)
    ts = t * 0.8 + 0.1
    np.testing.assert_allclose(
        bce, [-np.mean(ts * np.log(p) + (1 - ts) * np.log(1 - p))], rtol=1e-15
    )
    cce = value("categorical_crossentropy(t, p, label_smoothing=0.3)", at)
    np.testing.assert_allclose(cce, [-np.sum((t * 0.7 + 0.1) * np.log(p))], rtol=1e-15)


def test_categorical_crossentropy_normalizes_probabilities_first():
    p = np.array([[0.2, 0.3, 0.9]])
    out = value("categorical_crossentropy(t, p)", {"t": np.array([[0.0, 0.0, 1.0]]), "p": p})
    np.testing.assert_allclose(out, [-np.log(0.9 / 1.4)], rtol=1e-15)


def test_sparse_labels_with_a_last_axis_of_one_are_squeezed():
    doc = run_json("eval", "-", input=(
        "inputs:\n  i: {value: [[1], [0]], dtype: int64}\n  p: [[0.25, 0.75], [0.5, 0.5]]\n"
        "graph:\n  f: sparse_categorical_crossentropy(i, p)\n"
    ))  # fmt: skip
    np.testing.assert_allclose(doc["outputs"]["f"]["value"], -np.log([0.75, 0.5]), rtol=1e-15)
    assert list(doc["gradients"]) == ["p"]  # integer labels are never connected


@pytest.mark.parametrize(
    ("t", "p", "expected"),
    [
        ([1.0, -2.0], [[1.0], [4.0]], [0.0, 36.0]),  # rank 1 against (2, 1): t gets an axis
        ([[1.0], [2.0]], [[1.0, 3.0], [0.0, 2.0]], [2.0, 2.0]),  # broadcast along the last
        ([[[1.0], [2.0]]], [[1.0, 4.0]], [2.0]),  # (1, 2, 1) against (1, 2): squeezed
    ],
)
def test_mean_squared_error_brings_ranks_together_as_keras(t, p, expected):
    at = {"t": np.array(t), "p": np.array(p)}
    assert value("mean_squared_error(t, p)", at).tolist() == expected


# --- norms -----------------------------------------------------------------------------------
def test_norm_gradients_at_zero():
    # sqrt'(0) * 0 is nan (TensorFlow composes sqrt(sum(x * x))); abs'(0) = 0 for the others
    x = np.zeros((2,))
    for text, expected in (("norm(x)", [np.nan, np.nan]), ("norm(x, ord=1)", [0.0, 0.0]),
                           ("norm(x, ord=inf)", [0.0, 0.0])):  # fmt: skip
        _, g, _ = value_grad_hvp(text, {"x": x}, "x")
        np.testing.assert_array_equal(g, expected, err_msg=text)


def test_norm_matrix_orders_by_hand():
    x = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
    assert value("norm(x, ord=1, axis=[0, 1])", {"x": x}) == np.abs(x).sum(0).max()
    assert value("norm(x, ord=inf, axis=[0, 1])", {"x": x}) == np.abs(x).sum(1).max()
    np.testing.assert_allclose(value("norm(x, ord=3, axis=1)", {"x": x}),
                               np.sum(np.abs(x) ** 3, axis=1) ** (1 / 3), rtol=1e-15)  # fmt: skip


def test_l2_normalize_below_epsilon_is_a_scaling():
    # sum(x^2) < epsilon: maximum picks epsilon, so the result is x / sqrt(epsilon)
    x = np.array([3e-8, -4e-8])
    out, g, _ = value_grad_hvp("sum(l2_normalize(x) * [1, 2])", {"x": x}, "x")
    np.testing.assert_allclose(g, [1e6, 2e6], rtol=1e-12)
    np.testing.assert_allclose(out, (3e-8 - 8e-8) * 1e6, rtol=1e-12)


def test_logmeanexp_by_hand():
    x = np.array([[0.5, -1.25, 2.0], [1e3, 1e3, -1e3]])
    out = value("logmeanexp(x, axis=1)", {"x": x})
    np.testing.assert_allclose(out, [np.log(np.mean(np.exp(x[0]))), 1e3 + np.log(2 / 3)])
    _, g, _ = value_grad_hvp("logmeanexp(x)", {"x": x[0]}, "x")
    np.testing.assert_allclose(g, softmax(x[0]), rtol=1e-14)


# --- check: SymPy and finite differences agree with the core's conventions -------------------
CHECKS = [
    ("sum(softmax_cross_entropy(l, z))",
     {"l": [[0.2, 0.3, 0.9], [2, 0, 0]], "z": [[1, 2, 3], [0.5, -0.5, 0]]}),
    ("sum(sparse_softmax_cross_entropy([1, 0], z) * [2, 3])", {"z": [[1, 2, 3], [2, 2, -1]]}),
    ("sum(binary_crossentropy(t, p, label_smoothing=0.1))",
     {"t": [[0, 1, 1, 0.5]], "p": [[0, 1, 1e-7, 0.5]]}),
    ("sum(categorical_crossentropy(t, p))",
     {"t": [[0, 1, 0], [0.5, 0, 0.5]], "p": [[0, 1, 0], [0.2, 0.3, 0.4]]}),
    ("sum(categorical_crossentropy(t, p, from_logits=true, axis=0))",
     {"t": [[0.5, 1], [0.5, 0]], "p": [[1, 2], [1, -1]]}),
    ("sum(sparse_categorical_crossentropy([1, 2], p))", {"p": [[0, 1, 0], [0.2, 0.3, 0.4]]}),
    ("sum(mean_squared_error(t, p) + mean_absolute_error(t, p))",
     {"t": [[0, 1, 2]], "p": [[0, 2, 2]]}),
    ("norm(p, ord=inf) + norm(p, ord=1, axis=[0, 1]) + norm(p, axis=1)",
     {"p": [[0, 2, -2], [1, 0, 1]]}),
    ("sum(l2_normalize(p, epsilon=25) * [1, 2])", {"p": [3, 4]}),  # sum(x^2) = epsilon: a tie
    ("sum(logmeanexp(p, axis=0))", {"p": [[0, 2, -2], [1, 0, 1]]}),
]  # fmt: skip


@pytest.mark.parametrize("method", ["sympy", "fd"])
@pytest.mark.parametrize(("expr", "at"), CHECKS, ids=[e for e, _ in CHECKS])
def test_check_agrees(expr, at, method):
    args = [a for k, v in at.items() for a in ("--at", f"{k}={json.dumps(v)}")]
    res = invoke("check", "-e", expr, *args, "--method", method, "--format", "json")
    doc = json.loads(res.stdout)
    assert res.code == 0 and doc["ok"], res.stdout
    assert doc["method"] == method


# --- explain: clipped, saturated and inactive regions ----------------------------------------
EXPLAINED = [
    ("sum(categorical_crossentropy(t, p))", "[[0, 1, 0], [1, 0, 0]]",
     "[[0, 1, 0], [0.5, 0.25, 0.25]]", "inactive", 3,
     "categorical_crossentropy(t, p) clips y_pred / sum(y_pred) to [1e-7, 1 - 1e-7] "
     "(Keras' epsilon): p gets no gradient at 3 of 6 elements"),
    ("sum(binary_crossentropy(t, p))", "[[0, 1, 0.5]]", "[[0, 1, 0.25]]", "inactive", 2,
     "binary_crossentropy(t, p) clips y_pred to [1e-7, 1 - 1e-7] (Keras' epsilon): p gets no "
     "gradient at 2 of 3 elements"),
    ("sum(binary_crossentropy(t, p, from_logits=true))", "[[0, 1, 0.5]]", "[[-800, 800, 0.25]]",
     "inactive", 2, "binary_crossentropy(t, p, from_logits=true) is saturated (sigmoid(y_pred) "
     "equals y_true) at 2 of 3 elements: p gets no gradient"),
    ("sum(sparse_categorical_crossentropy([1, 0], p)) + t", "1", "[[0, 1, 0], [0.5, 0.25, 0.25]]",
     "inactive", 3, "sparse_categorical_crossentropy([1, 0], p) clips y_pred to [1e-7, 1 - 1e-7] "
     "(Keras' epsilon): p gets no gradient at 3 of 6 elements"),
    ("sum(mean_absolute_error(t, p))", "[[0, 1, 0.5]]", "[[0, 2, 0.5]]", "inactive", 2,
     "mean_absolute_error(t, p) is at y_true = y_pred, where abs'(0) = 0: p gets no gradient at "
     "2 of 3 elements"),
    ("sum(mean_squared_error(t, p))", "[[0], [1]]", "[[0, 2, 0.5], [1, 1, 1]]",
     "zero_derivative", 4,
     "the derivative of mean_squared_error(t, p) with respect to p is zero at 4 of 6 elements"),
    ("sum(norm(p, ord=1, axis=1)) + t", "1", "[[0, 1, 0.5], [0, 0, 2]]", "inactive", 3,
     "norm(p, ord=1.0, axis=1) passes no gradient where p is 0 (abs'(0) = 0): 3 of 6 elements"),
    ("sum(norm(p, ord=inf, axis=1)) + t", "1", "[[0, 1, 0.5], [0, 0, 2]]", "inactive", 4,
     "norm(p, ord=inf, axis=1) passes the gradient only to the largest |p| (and abs'(0) = 0): "
     "4 of 6 elements get none"),
    ("sum(sparse_softmax_cross_entropy([0, 1], p)) + t", "1", "[[1000, 0, -1000], [0, 1, 2]]",
     "zero_derivative", 3, "the derivative of sparse_softmax_cross_entropy([0, 1], p) with "
     "respect to p is zero at 3 of 6 elements"),
    ("sum(softmax_cross_entropy(t, p))", "[[0, 1, 0], [1, 0, 0]]", "[[0, 1000, 0], [0, 1, 2]]",
     "zero_derivative", 3, "the derivative of softmax_cross_entropy(t, p) with respect to p is "
     "zero at 3 of 6 elements"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "t", "p", "kind", "count", "detail"), EXPLAINED)
def test_explain_names_the_cause(expr, t, p, kind, count, detail):
    doc = run_json("explain", "-e", expr, "--at", f"t={t}", "--at", f"p={p}", "--wrt", "p", code=1)
    (pair,) = doc["pairs"]
    assert pair["status"] == "partially_zero"
    (cause,) = pair["causes"]
    assert (cause["kind"], cause["elements"], cause["detail"]) == (kind, count, detail)


# --- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("sparse_softmax_cross_entropy([0, 3], m)",
         "sparse_softmax_cross_entropy: labels[1] = 3 is outside the valid range of classes "
         "[0, 3)"),
        ("sparse_softmax_cross_entropy([-1, 0], m)", "labels[0] = -1 is outside the valid range"),
        ("sparse_softmax_cross_entropy([0.5, 1], m)", "indices must be integers"),
        ("sparse_softmax_cross_entropy([0], m)", "labels must have the shape of logits"),
        ("sparse_categorical_crossentropy([0, 7], m)", "labels[1] = 7 is outside the valid range"),
        ("sparse_categorical_crossentropy([0, 1], m, axis=0)", "only axis=-1 is supported"),
        ("softmax_cross_entropy(m, m[0])", "labels and logits must have one shape"),
        ("softmax_cross_entropy(m[0, 0], m[0, 1])", "needs tensors of rank 1 or more"),
        ("softmax_cross_entropy(m, m, axis=2)", "axis 2 is out of range"),
        ("binary_crossentropy(m, m[0])", "y_true and y_pred must have one shape"),
        ("mean_squared_error(m, [1, 2])", "do not broadcast"),
        ("mean_absolute_error(m[0, 0], m[0, 1])", "needs tensors of rank 1 or more"),
        ("norm(m, ord=2, axis=[0, 1])", "ord=2 of a matrix"),
        ("norm(m, ord='fro')", "ord must be a supported vector norm"),
        ("norm(m, ord=0)", "ord must be a supported vector norm"),
        ("norm(m, ord='nuc', axis=[0, 1])", "ord must be a supported matrix norm"),
        ("norm(m, axis=[0])", "a list of 2 distinct integers"),
        ("norm(m, axis=[1, 1])", "axis 1 is repeated"),
        ("norm(m, ord=true)", "ord must be a number (inf included) or a string"),
        ("l2_normalize(m, axis=3)", "axis 3 is out of range"),
    ],
)  # fmt: skip
def test_errors_are_positioned(expr, message):
    res = invoke("eval", "-e", expr, "--at", "m=[[1, 2, 3], [4, 5, 6]]")
    assert res.code == 2, (res.stdout, res.stderr)
    assert "<expr>:1:" in res.stderr and message in res.stderr, res.stderr


def test_a_computed_label_out_of_range_fails_at_evaluation():
    res = invoke("eval", "-e", "sparse_softmax_cross_entropy(cast(x[0:2], 'int32'), m)",
                 "--at", "x=[0, 5, 1]", "--at", "m=[[1, 2, 3], [4, 5, 6]]")  # fmt: skip
    assert res.code != 0
    assert "labels[1] = 5 is outside the valid range of classes [0, 3)" in res.stderr


def test_no_classes_with_a_batch_is_an_error():
    res = invoke("eval", "-e", "sparse_softmax_cross_entropy([0, 0], m)", "--at", "m=[[], []]")
    assert res.code == 2 and "must have at least one class" in res.stderr, res.stderr
