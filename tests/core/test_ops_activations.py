"""Activations: finite differences (first and second order), check, explain, attributes.

Expected values come from closed forms (TensorFlow's kernels' definitions, see
gradcli/core/ops/activations.py), SymPy (check) or finite differences; values and
gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_activations.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import central_difference, invoke, run_json

from gradcli.api import problem_from_expression
from gradcli.core.autodiff import gradients
from gradcli.core.executor import resolve_conds, run

RNG = np.random.default_rng(20260513)
ALPHA32 = float(np.float32(0.2))  # TensorFlow's float32 alpha attribute
SELU_SCALE = 1.0507009873554804934193349852946
SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


def grad_and_hvp(expr: str, x: np.ndarray, v: np.ndarray | None = None):
    """(value, gradient, Hessian-vector product) of scalar expr(x), all from gradcli."""
    problem = problem_from_expression(expr, {"x": x}, wrt=["x"])
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    (g,) = gradients(graph, problem.outputs, problem.wrt).results
    targets = [problem.outputs[0], g]
    h = None
    if v is not None:
        (h,) = gradients(graph, [g], problem.wrt, seeds=[v]).results
        targets += [h] if isinstance(h, int) else []
    values = run(graph, targets, known=known)
    hv = None
    if v is not None:
        hv = np.zeros_like(x) if not isinstance(h, int) else np.asarray(values[h], dtype=float)
    return float(values[problem.outputs[0]]), np.asarray(values[g], dtype=float), hv


# expression over x (shape (3, 4)), and the draw that keeps x off its kinks
SMOOTH_SIDES = {
    "leaky_relu(x)": dict(lo=-2, hi=2, away=0.2),
    "leaky_relu(x, alpha=0.7)": dict(lo=-2, hi=2, away=0.2),
    "leaky_relu(x, -1.5)": dict(lo=-2, hi=2, away=0.2),
    "relu6(x)": dict(lo=-2, hi=8, away=0.2),
    "hard_sigmoid(x)": dict(lo=-4, hi=4, away=0.2),
    "elu(x)": dict(lo=-3, hi=3, away=0.2),
    "selu(x)": dict(lo=-3, hi=3, away=0.2),
    "silu(x)": dict(lo=-5, hi=5),
    "swish(x)": dict(lo=-5, hi=5),
    "softsign(x)": dict(lo=-3, hi=3, away=0.2),
    "log_sigmoid(x)": dict(lo=-5, hi=5),
    "mish(x)": dict(lo=-5, hi=5),
    "log_softmax(x)": dict(lo=-3, hi=3),
    "log_softmax(x, axis=0)": dict(lo=-3, hi=3),
}


def draw(lo, hi, away=0.0):
    x = RNG.uniform(lo, hi, size=(3, 4))
    # keep every element at least `away` from the kinks 0 and 6 (relu6), -3 and 3 (hard_sigmoid)
    for kink in (-3.0, 0.0, 3.0, 6.0):
        near = np.abs(x - kink) < away
        x = np.where(near, kink + np.where(x >= kink, away, -away) * 1.5, x)
    return x


@pytest.mark.parametrize("expr", sorted(SMOOTH_SIDES))
def test_first_and_second_order_against_finite_differences(expr):
    x = draw(**SMOOTH_SIDES[expr])
    w = RNG.uniform(0.5, 1.5, size=x.shape)
    loss = f"sum({expr} * {expr} * w)"  # squared: a nonzero second derivative on linear sides

    def value(x_new):
        problem = problem_from_expression(loss, {"x": x_new, "w": w}, wrt=[])
        return float(run(problem.graph, list(problem.outputs))[problem.outputs[0]])

    def loss_of(x_new, v=None):
        problem = problem_from_expression(loss, {"x": x_new, "w": w}, wrt=["x"])
        graph = problem.graph
        (g,) = gradients(graph, problem.outputs, problem.wrt).results
        targets = [g]
        h = None
        if v is not None:
            (h,) = gradients(graph, [g], problem.wrt, seeds=[v]).results
            targets.append(h)
        values = run(graph, targets)
        return np.asarray(values[g]), None if h is None else np.asarray(values[h])

    v = RNG.uniform(-1, 1, size=x.shape)
    g, hv = loss_of(x, v)
    np.testing.assert_allclose(g, central_difference(value, x), rtol=1e-6, atol=1e-8)
    numeric = central_difference(lambda xn: float(np.sum(loss_of(xn)[0] * v)), x, eps=1e-5)
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7, err_msg=expr)


# --- closed forms at TensorFlow's kinks ------------------------------------------------------
def gradient_at(expr: str, x) -> tuple[float, float]:
    value, g, _ = grad_and_hvp(expr, np.float64(x))
    return value, float(g)


def test_leaky_relu_alpha_is_float32_and_its_kink_takes_alpha():
    assert gradient_at("leaky_relu(x)", -1.0) == (-ALPHA32, ALPHA32)
    assert gradient_at("leaky_relu(x)", 0.0) == (0.0, ALPHA32)  # x > 0 is false at 0
    assert gradient_at("leaky_relu(x, alpha=0.5)", 0.0)[1] == 0.5
    assert gradient_at("leaky_relu(x, alpha=0.5)", 1e-300)[1] == 1.0
    assert gradient_at("leaky_relu(x, 2)", -3.0) == (-6.0, 2.0)  # alpha > 1: still x * alpha


@pytest.mark.parametrize(
    ("x", "value", "slope"),
    [(-1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (3.0, 3.0, 1.0), (6.0, 6.0, 0.0), (7.0, 6.0, 0.0)],
)
def test_relu6_passes_only_strictly_inside(x, value, slope):
    assert gradient_at("relu6(x)", x) == (value, slope)


def test_hard_sigmoid_kinks_and_the_rounding_just_below_3():
    assert gradient_at("hard_sigmoid(x)", -3.0) == (0.0, 0.0)
    assert gradient_at("hard_sigmoid(x)", 3.0) == (1.0, 0.0)
    assert gradient_at("hard_sigmoid(x)", 0.0) == (0.5, 1.0 / 6.0)
    below = math.nextafter(3.0, 0.0)
    assert below + 3.0 == 6.0  # round half to even: x + 3 is 6, so relu6 is saturated
    assert gradient_at("hard_sigmoid(x)", below) == (1.0, 0.0)


def test_elu_and_selu_at_zero_and_saturated():
    assert gradient_at("elu(x)", 0.0) == (0.0, 1.0)  # y < 0 is false: slope 1
    assert gradient_at("selu(x)", 0.0) == (0.0, SELU_SCALE)
    assert gradient_at("elu(x)", -1e-10) == (math.exp(-1e-10) - 1.0, math.exp(-1e-10))
    # exp(-40) - 1 rounds to -1: (y + 1) * g is exactly 0
    assert gradient_at("elu(x)", -40.0) == (-1.0, 0.0)
    assert gradient_at("selu(x)", -40.0) == (-SELU_SCALE_ALPHA, 0.0)


def test_log_softmax_closed_form():
    x = np.array([[0.5, -1.0, 2.0], [1.0, 1.0, 1.0]])
    w = np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]])
    problem = problem_from_expression("sum(log_softmax(x) * w)", {"x": x, "w": w}, wrt=["x"])
    graph = problem.graph
    (g,) = gradients(graph, problem.outputs, problem.wrt).results
    values = run(graph, [problem.outputs[0], g])
    lse = np.log(np.sum(np.exp(x), axis=1, keepdims=True))
    softmax = np.exp(x - lse)
    np.testing.assert_allclose(values[problem.outputs[0]], np.sum((x - lse) * w), rtol=1e-14)
    expected = w - np.sum(w, axis=1, keepdims=True) * softmax
    np.testing.assert_allclose(values[g], expected, rtol=1e-13, atol=1e-15)


# --- check: SymPy's derivative at ordinary points and at the kinks -----------------------------
CHECKS = [
    ("leaky_relu(x) * x", "x=[-1.5, 0, 2]"),
    ("leaky_relu(x, alpha=0.3) + leaky_relu(x, 0)", "x=[-1.5, 0, 2]"),
    ("relu6(x) * x", "x=[-1, 0, 3, 6, 7]"),
    ("hard_sigmoid(x) * x", "x=[-4, -3, 0.5, 3, 4]"),
    ("elu(x) * x", "x=[-40, -1.5, 0, 2]"),
    ("selu(x) * x", "x=[-40, -1.5, 0, 2]"),
    ("silu(x) + swish(2 * x)", "x=[-40, -1.5, 0, 2, 40]"),
    ("softsign(x) * x", "x=[-1.5, 0, 2]"),
    ("log_sigmoid(x)", "x=[-800, -1.5, 0, 2, 800]"),
    ("mish(x)", "x=[-40, -1.5, 0, 2, 40]"),
    ("log_softmax(x, axis=0) * x", "x=[[0.5, -1], [2, 2]]"),
]


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_against_sympy(expr, at):
    res = invoke("check", "-e", f"sum({expr})", "--at", at, "--format", "json")
    assert res.code == 0, (res.stdout, res.stderr)
    assert "sympy" in res.stdout.lower()


# --- explain: where a saturated activation passes no gradient -------------------------------------
SATURATED = "is saturated"
EXPLAINED = [
    ("sum(relu6(x))", "x=[-1, 3, 6, 7]",
     f"relu6(x) {SATURATED} (input <= 0 or >= 6) at 3 of 4 elements"),
    ("sum(hard_sigmoid(x))", "x=[-4, 0, 3]",
     f"hard_sigmoid(x) {SATURATED} (input <= -3 or >= 3) at 2 of 3 elements"),
    ("sum(elu(x))", "x=[-40, 3]",
     f"elu(x) {SATURATED} (output = -1, where exp(x) - 1 rounds to -1) at 1 of 2 elements"),
    ("sum(selu(x))", "x=[-40, -50, 3]",
     f"selu(x) {SATURATED} (output = -scale * alpha) at 2 of 3 elements"),
    ("sum(leaky_relu(x, alpha=0))", "x=[-1, 0, 3]",
     "leaky_relu(x) passes no gradient (input <= 0 with alpha = 0) at 2 of 3 elements"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at", "detail"), EXPLAINED)
def test_explain_names_the_saturated_activation(expr, at, detail):
    doc = run_json("explain", "-e", expr, "--at", at, "--wrt", "x", code=1)
    (pair,) = doc["pairs"]
    assert pair["status"] == "partially_zero"
    (cause,) = pair["causes"]
    assert cause["kind"] == "inactive"
    assert cause["op"] == expr[4:].split("(")[0]
    assert cause["detail"] == detail


def test_a_leaky_relu_passes_gradient_everywhere():
    doc = run_json("explain", "-e", "sum(leaky_relu(x))", "--at", "x=[-1, 0, 3]", "--wrt", "x")
    assert doc["pairs"][0]["status"] == "connected"


# --- the float attribute ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("alpha", "message"),
    [
        ("'a'", "leaky_relu: alpha must be a constant, not a string"),
        ("[1, 2]", "leaky_relu: alpha must be a finite number"),
        ("true", "leaky_relu: alpha must be a finite number"),
        ("inf", "leaky_relu: alpha must be a finite number"),
        ("y", "leaky_relu: alpha must be a finite number"),
        ("1e39", "leaky_relu: alpha must be finite in float32"),
    ],
)
def test_a_bad_alpha_is_a_positioned_error(alpha, message):
    res = invoke("eval", "-e", f"leaky_relu(x, alpha={alpha}) + y", "--at", "x=1", "--at", "y=2")
    assert res.code == 2
    assert "<expr>:1:" in res.stderr and message in res.stderr, res.stderr


def test_negative_alpha_and_positional_alpha():
    assert gradient_at("leaky_relu(x, alpha=-0.5)", -1.0) == (0.5, -0.5)
    assert gradient_at("leaky_relu(x, -0.5)", -1.0) == (0.5, -0.5)


# --- silu / swish with beta (tf.nn.silu(features, beta)) ----------------------------------------
def _silu_beta(x, beta):
    return x / (1 + np.exp(-beta * x))


def test_silu_beta_value_and_both_gradients():
    x, beta = np.array([-1.5, 0.25, 2.0]), 1.75
    for expr in ("silu(x, b)", "swish(x, beta=b)"):
        doc = run_json("eval", "-e", f"sum({expr})", "--at", f"x={x.tolist()}", "--at",
                       f"b={beta}", "--check", "off")  # fmt: skip
        assert doc["outputs"]["f"]["value"] == pytest.approx(_silu_beta(x, beta).sum(), rel=1e-15)
        s = 1 / (1 + np.exp(-beta * x))
        dx = s * (1 + beta * x * (1 - s))
        np.testing.assert_allclose(doc["gradients"]["x"]["value"], dx, rtol=1e-14)
        db = np.sum(x * x * s * (1 - s))
        assert doc["gradients"]["b"]["value"] == pytest.approx(db, rel=1e-14)


def test_silu_beta_against_finite_differences():
    x, beta = np.array([-1.25, 0.5, 1.5]), 0.8
    w = np.array([1.0, -2.0, 0.5])

    def loss(xv, bv):
        return float(np.sum(_silu_beta(xv, bv) * w))

    doc = run_json("eval", "-e", f"sum(silu(x, b) * {w.tolist()})", "--at", f"x={x.tolist()}",
                   "--at", f"b={beta}", "--check", "off")  # fmt: skip
    fd_x = central_difference(lambda v: loss(v, beta), x)
    fd_b = central_difference(lambda v: loss(x, float(v)), np.array(beta))
    np.testing.assert_allclose(doc["gradients"]["x"]["value"], fd_x, rtol=1e-7)
    assert doc["gradients"]["b"]["value"] == pytest.approx(float(fd_b), rel=1e-7)
    res = invoke("check", "-e", "sum(silu(x, b) * x)", "--at", "x=[-1.25, 0.5]", "--at", "b=0.8")
    assert res.code == 0, res.stdout


def test_silu_casts_beta_to_the_features_dtype():
    doc = run_json("eval", "-e", "sum(silu(cast(x, 'float32'), b))", "--at", "x=[-1.5, 2]",
                   "--at", "b=1.25", "--check", "off")  # fmt: skip
    assert doc["outputs"]["f"]["dtype"] == "float32"
    assert doc["gradients"]["b"]["dtype"] == "float64"  # back through TensorFlow's cast


def test_silu_beta_must_be_a_scalar():
    res = invoke("eval", "-e", "silu(x, beta=x)", "--at", "x=[1, 2]", "--check", "off")
    assert res.code == 2 and "silu: beta must be a scalar, got shape (2,)" in res.stderr
