"""The special functions (gradcli/core/ops/special.py): closed forms, TensorFlow's domain-edge
conventions, SymPy checks through the CLI, explain's causes and NaN/Inf diagnosis.

Expected values come from closed forms (math's functions), TensorFlow's formulas worked by
hand at the edges, or SymPy; the TensorFlow reference data covers the same ops in
tests/test_tf_reference.py.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import eval_grad, invoke, num, run_json

INF, NAN = math.inf, math.nan


# --- derivatives against closed forms ----------------------------------------------------
X = 0.375
CLOSED = {
    "erf(x)": (math.erf(X), 2 / math.sqrt(math.pi) * math.exp(-X * X)),
    "erfc(x)": (math.erfc(X), -2 / math.sqrt(math.pi) * math.exp(-X * X)),
    "asin(x)": (math.asin(X), 1 / math.sqrt(1 - X * X)),
    "acos(x)": (math.acos(X), -1 / math.sqrt(1 - X * X)),
    "atan(x)": (math.atan(X), 1 / (1 + X * X)),
    "sinh(x)": (math.sinh(X), math.cosh(X)),
    "cosh(x)": (math.cosh(X), math.sinh(X)),
    "asinh(x)": (math.asinh(X), 1 / math.sqrt(X * X + 1)),
    "acosh(x + 1)": (math.acosh(X + 1), 1 / math.sqrt((X + 1) ** 2 - 1)),
    "atanh(x)": (math.atanh(X), 1 / (1 - X * X)),
    "expm1(x)": (math.expm1(X), math.exp(X)),
    "log2(x)": (math.log2(X), 1 / (X * math.log(2))),
    "log10(x)": (math.log10(X), 1 / (X * math.log(10))),
    "reciprocal(x)": (1 / X, -1 / X**2),
    "rsqrt(x)": (X**-0.5, -0.5 * X**-1.5),
    "cbrt(x)": (X ** (1 / 3), X ** (-2 / 3) / 3),
    "cbrt(-x)": (-(X ** (1 / 3)), -(X ** (-2 / 3)) / 3),
}


@pytest.mark.parametrize("expr", sorted(CLOSED))
def test_value_and_derivative_match_the_closed_form(expr):
    value, grads = eval_grad(expr, x=X)
    want_value, want_grad = CLOSED[expr]
    assert value == pytest.approx(want_value, rel=1e-15, abs=1e-15)
    assert grads["x"] == pytest.approx(want_grad, rel=1e-14)


def test_atan2_quadrants_and_partials():
    ys, xs = [1.0, 1.0, -1.0, -1.0], [1.0, -1.0, -1.0, 1.0]
    value, grads = eval_grad("sum(atan2(y, x))", y=ys, x=xs)
    assert value == pytest.approx(sum(math.atan2(a, b) for a, b in zip(ys, xs)))
    r2 = [a * a + b * b for a, b in zip(ys, xs)]
    assert num(grads["y"]) == pytest.approx([b / r for b, r in zip(xs, r2)])
    assert num(grads["x"]) == pytest.approx([-a / r for a, r in zip(ys, r2)])


def test_xlogy_and_xdivy_partials():
    value, grads = eval_grad("xlogy(x, y) + xdivy(x, y)", x=1.5, y=2.5)
    assert value == pytest.approx(1.5 * math.log(2.5) + 1.5 / 2.5)
    assert grads["x"] == pytest.approx(math.log(2.5) + 1 / 2.5)
    assert grads["y"] == pytest.approx(1.5 / 2.5 - 1.5 / 2.5**2)


# --- TensorFlow's conventions at the domain edges ----------------------------------------
EDGES = [
    # (expression, x, value, gradient): TensorFlow's formulas at the edge, worked by hand
    ("asin(x)", 1.0, math.pi / 2, INF),  # reciprocal(sqrt(1 - 1)) = inf
    ("asin(x)", -1.0, -math.pi / 2, INF),
    ("acos(x)", 1.0, 0.0, -INF),  # -g * inf
    ("atanh(x)", 1.0, INF, INF),  # reciprocal(1 - 1)
    ("acosh(x)", 1.0, 0.0, INF),  # g / sinh(0)
    ("reciprocal(x)", 0.0, INF, -INF),  # ReciprocalGrad: -(inf * inf) * 1
    ("rsqrt(x)", 0.0, INF, -INF),  # RsqrtGrad: -0.5 * (1 * inf) * (inf * inf)
    ("cbrt(x)", 0.0, 0.0, NAN),  # pow's (g/3) * 0 ** (-2/3) = inf, times sign(0) = 0
    ("asin(x)", 1.5, NAN, NAN),  # outside the domain
    ("log2(x)", 0.0, -INF, INF),
]


@pytest.mark.parametrize(("expr", "x", "value", "gradient"), EDGES)
def test_domain_edges_follow_tensorflow(expr, x, value, gradient):
    got_value, grads = eval_grad(expr, x=x)
    np.testing.assert_equal(num(got_value), value)
    np.testing.assert_equal(num(grads["x"]), gradient)


def test_reciprocal_and_rsqrt_kernels_pass_no_nan_where_the_gradient_is_zero():
    # TensorFlow's ReciprocalGrad and RsqrtGrad give 0 where dy = 0 (like SqrtGrad), so a
    # `where` guard works, unlike 1 / x whose div gradient gives 0 * inf = nan
    for expr in ("where(x != 0, reciprocal(x), 0)", "where(x > 0, rsqrt(x), 0)"):
        _, grads = eval_grad(expr, x=[0.0, 4.0])
        assert num(grads["x"])[0] == 0.0, expr
    _, grads = eval_grad("where(x != 0, 1 / x, 0)", x=[0.0, 4.0])
    assert math.isnan(num(grads["x"])[0])


def test_atan2_at_the_origin_has_a_nan_gradient():
    value, grads = eval_grad("atan2(y, x)", y=0.0, x=0.0)
    assert num(value) == 0.0 and math.isnan(num(grads["x"])) and math.isnan(num(grads["y"]))


def test_xlogy_at_x_zero_is_zero_with_zero_gradients_even_at_y_zero():
    # TensorFlow: xlogy(0, y) = 0 and its gradients are xlogy(0, y) * g = 0 and
    # xdivy(0, y) * g = 0, even where log(y) is -inf or nan
    for y in (0.0, 2.0, NAN):
        for op in ("xlogy", "xdivy"):
            value, grads = eval_grad(f"{op}(x, y)", x=0.0, y=y)
            assert (num(value), num(grads["x"]), num(grads["y"])) == (0.0, 0.0, 0.0), (op, y)


def test_log2_and_log10_are_tensorflow_numpy_quotients():
    # tf.experimental.numpy.log2(x) = log(x) / log(2): correctly rounded quotients
    value, _ = eval_grad("log2(x)", x=[8.0, 1024.0, 3.0])
    assert num(value).tolist() == [math.log(v) / math.log(2) for v in (8.0, 1024.0, 3.0)]
    value, _ = eval_grad("log10(x)", x=[1000.0, 7.0])
    assert num(value).tolist() == [math.log(v) / math.log(10) for v in (1000.0, 7.0)]


# --- gradcli check: SymPy's derivatives agree ------------------------------------------------
CHECKS = [
    ("erf(x) * erfc(x) + asin(x) + acos(x) * atan(x)", {"x": "0.3"}),
    ("sinh(x) + cosh(x) * asinh(x) + atanh(x) + expm1(x)", {"x": "-0.6"}),
    ("acosh(x) + log2(x) * log10(x) + reciprocal(x) + rsqrt(x)", {"x": "1.7"}),
    ("cbrt(x) * cbrt(-x * x)", {"x": "[-2.5, 0.5]"}),
    ("atan2(y, x) + xlogy(x, y) + xdivy(y, x)", {"x": "[-1.5, 0.5]", "y": "[2.0, 0.25]"}),
    ("xlogy(x, y) + xdivy(x, y)", {"x": "[0.0, 2.0]", "y": "[0.0, 3.0]"}),
]


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_agrees_with_sympy(expr, at):
    args = [a for k, v in at.items() for a in ("--at", f"{k}={v}")]
    res = invoke("check", "-e", expr, *args, "--format", "json")
    doc = json.loads(res.stdout)
    assert res.code == 0, res.stdout
    assert doc["method"] == "sympy" and doc["ok"]


# --- explain and NaN/Inf diagnosis ---------------------------------------------------------
def test_explain_names_xlogy_at_x_zero():
    doc = run_json(
        "explain", "-e", "sum(xlogy(x, y))", "--at", "x=[0, 1.5]", "--at", "y=[2, 3]", code=1
    )
    for pair, name in zip(doc["pairs"], ("x", "y")):
        assert pair["input"] == name and pair["zero_elements"] == 1
        [cause] = pair["causes"]
        assert (cause["kind"], cause["op"]) == ("zero_derivative", "xlogy")
        assert cause["detail"] == (
            f"the derivative of xlogy(x, y) with respect to {name} is zero at 1 of 2 elements"
        )


def test_explain_names_a_saturated_erf():
    doc = run_json("explain", "-e", "erf(x)", "--at", "x=30", code=1)
    [cause] = doc["pairs"][0]["causes"]
    assert (cause["kind"], cause["op"]) == ("zero_derivative", "erf")
    assert (
        cause["detail"] == "the derivative of erf(x) with respect to x is zero at its only element"
    )


def _warnings(expr, *at):
    doc = run_json("eval", "-e", expr, *at, "--check", "off")
    return {(w["what"], w["name"]): w["origins"][0] for w in doc["warnings"]}


def test_sinh_overflow_is_an_overflow_and_reciprocal_at_zero_a_pole():
    warned = _warnings("sinh(x)", "--at", "x=1000")
    assert warned["gradient", "x"]["origin"] == "overflow"
    warned = _warnings("xlogy(x, y)", "--at", "x=2", "--at", "y=0")
    assert warned["gradient", "x"]["origin"] == "singular_derivative"
    warned = _warnings("reciprocal(x)", "--at", "x=0")
    assert warned["output", "f"]["detail"] == "reciprocal(x) gives inf (x = 0)"


# --- erfinv and xlog1py ------------------------------------------------------------------------
def test_erfinv_inverts_erf_and_its_gradient_reads_the_output():
    xs = [-0.9, -0.25, 0.0, 0.375, 0.99]
    value, grads = eval_grad("erfinv(x)", x=xs)
    for x, y, g in zip(xs, num(value), num(grads["x"])):
        assert math.erf(y) == pytest.approx(x, rel=1e-15, abs=1e-16)
        # _ErfinvGrad: sqrt(pi) / 2 * exp(y^2)
        assert g == pytest.approx(math.sqrt(math.pi) / 2 * math.exp(y * y), rel=1e-14)


def test_erfinv_edges_follow_tensorflow():
    value, grads = eval_grad("erfinv(x)", x=[-1.0, 1.0, -0.0, 1.5, NAN])
    np.testing.assert_equal(num(value), [-INF, INF, 0.0, NAN, NAN])
    assert not np.signbit(num(value)[2])  # ndtri(0.5 * -0.0 + 0.5) * sqrt(1/2) = +0.0
    np.testing.assert_equal(num(grads["x"]), [INF, INF, math.sqrt(math.pi) / 2, NAN, NAN])


def test_xlog1py_partials_and_its_zero_at_x_zero():
    value, grads = eval_grad("xlog1py(x, y)", x=1.5, y=2.5)
    assert value == pytest.approx(1.5 * math.log1p(2.5))
    assert grads["x"] == pytest.approx(math.log1p(2.5))
    assert grads["y"] == pytest.approx(1.5 / 3.5)
    for y in (-1.0, 2.0, NAN):  # TensorFlow: 0 where x == 0, and both gradients 0
        value, grads = eval_grad("xlog1py(x, y)", x=0.0, y=y)
        assert (num(value), num(grads["x"]), num(grads["y"])) == (0.0, 0.0, 0.0), y
    value, grads = eval_grad("xlog1py(x, y)", x=2.0, y=-1.0)
    assert num(value) == -INF and num(grads["y"]) == INF


@pytest.mark.parametrize(
    ("expr", "at"),
    [("erfinv(x) * xlog1py(x, y)", {"x": "[-0.5, 0.25]", "y": "[0.5, 3.0]"}),
     ("xlog1py(x, y)", {"x": "[0.0, 2.0]", "y": "[-1.0, 3.0]"})],
)  # fmt: skip
def test_erfinv_and_xlog1py_agree_with_sympy(expr, at):
    args = [a for k, v in at.items() for a in ("--at", f"{k}={v}")]
    res = invoke("check", "-e", expr, *args, "--format", "json")
    doc = json.loads(res.stdout)
    assert res.code == 0, res.stdout
    assert doc["method"] == "sympy" and doc["ok"]
