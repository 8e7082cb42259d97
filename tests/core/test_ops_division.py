"""floormod (mod), floordiv, div_no_nan and mul_no_nan (gradcli/core/ops/division.py and
kernels.py): TensorFlow's values and gradient formulas worked by hand, first and second
order finite differences, and SymPy checks through the CLI.

The TensorFlow reference data covers the same ops (tools/tf_cases_division.py).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import central_difference, eval_grad, invoke, num, run_json

INF, NAN = math.inf, math.nan


# --- values and gradients by hand ----------------------------------------------------------
XS = [5.5, -5.5, 5.5, -5.5, 0.75]
YS = [2.0, 2.0, -2.0, -2.0, 0.5]


def test_floormod_has_the_divisors_sign_and_tensorflows_gradient():
    value, grads = eval_grad("floormod(x, y)", x=XS, y=YS)
    np.testing.assert_array_equal(num(value), [1.5, 0.5, -0.5, -1.5, 0.25])
    np.testing.assert_array_equal(num(grads["x"]), [1.0] * 5)
    # -floor(x / y): TensorFlow's _FloorModGrad
    np.testing.assert_array_equal(num(grads["y"]), [-2.0, 3.0, 3.0, -2.0, -1.0])


def test_mod_is_floormod():
    assert eval_grad("mod(x, y)", x=XS, y=YS) == eval_grad("floormod(x, y)", x=XS, y=YS)


def test_floormod_at_a_jump_uses_the_formula():
    # x / y = 2 exactly: TensorFlow's formula gives -floor(2) = -2
    value, grads = eval_grad("floormod(x, y)", x=3.0, y=1.5)
    assert num(value) == 0.0
    assert (num(grads["x"]), num(grads["y"])) == (1.0, -2.0)


def test_floordiv_values_and_no_gradient():
    value, _ = eval_grad("floordiv(x, y) + x * 0", x=XS, y=YS)
    np.testing.assert_array_equal(num(value), [2.0, -3.0, -3.0, 2.0, 1.0])
    doc = run_json("eval", "-e", "floordiv(x, y)", "--at", "x=5.5", "--at", "y=2", "--check", "off")
    assert all(v["value"] is None for v in doc["gradients"].values())


def test_div_no_nan_and_mul_no_nan_are_zero_where_y_is_zero():
    value, grads = eval_grad("div_no_nan(x, y)", x=[1.5, 3.0], y=[0.0, 2.0])
    np.testing.assert_array_equal(num(value), [0.0, 1.5])
    np.testing.assert_array_equal(num(grads["x"]), [0.0, 0.5])
    np.testing.assert_array_equal(num(grads["y"]), [0.0, -0.75])
    value, grads = eval_grad("mul_no_nan(x, y)", x=[1.5, 3.0], y=[0.0, 2.0])
    np.testing.assert_array_equal(num(value), [0.0, 6.0])
    np.testing.assert_array_equal(num(grads["x"]), [0.0, 2.0])
    np.testing.assert_array_equal(num(grads["y"]), [1.5, 3.0])


# --- finite differences, first and second order -------------------------------------------
RNG = np.random.default_rng(20261124)
X = RNG.uniform(-3.0, 3.0, size=(3, 4))
Y = RNG.uniform(0.5, 2.0, size=(3, 4)) * np.sign(RNG.uniform(-1, 1, size=(3, 4)))
FIRST = [
    "floormod(x, y)",
    "mod(x * x, y)",
    "div_no_nan(x, y)",
    "mul_no_nan(x, y)",
    "floormod(x, y) * x + div_no_nan(x * x, y) * mul_no_nan(y, x)",
]


def _loss(expr):
    return f"sum(W * ({expr}))"


def _value_and_grad(expr, x, y, w):
    value, grads = eval_grad(_loss(expr), x=x.tolist(), y=y.tolist(), W=w.tolist())
    return float(value), {k: np.asarray(num(v)).reshape(x.shape) for k, v in grads.items()}


@pytest.mark.parametrize("expr", FIRST)
def test_first_order_against_finite_differences(expr):
    w = RNG.uniform(0.5, 1.5, size=X.shape)
    _, grads = _value_and_grad(expr, X, Y, w)
    fx = lambda v: _value_and_grad(expr, v, Y, w)[0]  # noqa: E731
    fy = lambda v: _value_and_grad(expr, X, v, w)[0]  # noqa: E731
    np.testing.assert_allclose(grads["x"], central_difference(fx, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grads["y"], central_difference(fy, Y), rtol=1e-6, atol=1e-8)


SECOND = [
    "floormod(x * x, y) * x",
    "div_no_nan(x * x, y) * x",
    "mul_no_nan(x * x, y) * sin(x)",
]


@pytest.mark.parametrize("expr", SECOND)
def test_second_order_against_finite_differences(expr):
    # the Hessian (gradcli hessian) against central differences of the gradient
    w = RNG.uniform(0.5, 1.5, size=X.shape)
    x0 = np.abs(X) + 0.3
    at = {"x": x0, "y": Y, "W": w}
    args = [a for k, v in at.items() for a in ("--at", f"{k}={json.dumps(v.tolist())}")]
    doc = run_json("hessian", "-e", _loss(expr), *args, "--wrt", "x")
    block = np.asarray(doc["hessian"]["x"]["x"]["value"], dtype=float).reshape(x0.size, x0.size)
    for j in range(x0.size):

        def partial(x, j=j):
            return float(_value_and_grad(expr, x, Y, w)[1]["x"].reshape(-1)[j])

        numeric = central_difference(partial, x0, eps=1e-5).reshape(-1)
        np.testing.assert_allclose(block[j], numeric, rtol=1e-5, atol=1e-7, err_msg=expr)


# --- SymPy through the CLI ---------------------------------------------------------------
CHECKS = [
    ("floormod(x, y) * x + mod(x * x, y)", {"x": "[-2.5, 0.75, 1.3]", "y": "[2.0, -0.5, 0.7]"}),
    ("div_no_nan(x, y) + mul_no_nan(x, y) * x", {"x": "[1.5, -0.5]", "y": "[0.0, 2.0]"}),
    ("floordiv(x, y) * x + floormod(x, y)", {"x": "[5.5, -1.25]", "y": "[2.0, 0.5]"}),
]


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_agrees_with_sympy(expr, at):
    args = [a for k, v in at.items() for a in ("--at", f"{k}={v}")]
    res = invoke("check", "-e", expr, *args, "--format", "json")
    doc = json.loads(res.stdout)
    assert res.code == 0, res.stdout
    assert doc["method"] == "sympy" and doc["ok"]


# --- explain ------------------------------------------------------------------------------------
def _causes(expr, *at, code=1):
    doc = run_json("explain", "-e", expr, *(a for v in at for a in ("--at", v)), code=code)
    return {p["input"]: (p["status"], [c["kind"] for c in p["causes"]]) for p in doc["pairs"]}


def test_explain_floordiv_cuts_the_gradient():
    # floordiv has no gradient (TensorFlow's FloorDiv): alone it leaves x unconnected
    assert _causes("sum(floordiv(x, 2.0))", "x=[1, 2]") == {
        "x": ("unconnected", ["non_differentiable"])
    }
    # multiplied by x, the other path is masked where floordiv(x, 2) is 0
    assert _causes("sum(floordiv(x, 2.0) * x)", "x=[1, 2]") == {
        "x": ("partially_zero", ["mask", "non_differentiable"])
    }


def test_explain_div_no_nan_zeroes_where_the_divisor_is_zero():
    # d/dx div_no_nan(x, y) = 1/y, but 0 where y == 0; d/dy likewise 0 there
    assert _causes("sum(div_no_nan(x, y))", "x=[1, 2]", "y=[0, 2]") == {
        "x": ("partially_zero", ["zero_derivative"]),
        "y": ("partially_zero", ["zero_derivative"]),
    }


def test_explain_mul_no_nan_masks_x_where_y_is_zero():
    assert _causes("sum(mul_no_nan(x, y))", "x=[1, 2]", "y=[0, 2]") == {
        "x": ("partially_zero", ["mask"]),
        "y": ("connected", []),
    }


# --- truncatemod: C's fmod (TensorFlow's TruncateMod) ----------------------------------------
def test_truncatemod_has_the_dividends_sign_and_the_truncated_gradient():
    value, grads = eval_grad("truncatemod(x, y)", x=XS, y=YS)
    np.testing.assert_array_equal(num(value), [1.5, -1.5, 1.5, -1.5, 0.25])
    np.testing.assert_array_equal(num(value), np.fmod(XS, YS))
    np.testing.assert_array_equal(num(grads["x"]), [1.0] * 5)
    # -trunc(x / y): x - y * stop_gradient(truncatediv(x, y)) differentiated, as TensorFlow
    # would (TensorFlow registers no gradient for TruncateMod itself)
    np.testing.assert_array_equal(num(grads["y"]), [-2.0, 2.0, 2.0, -2.0, -1.0])


def test_truncatemod_edges_are_fmods():
    x = [-4.0, -0.0, 3.0, INF, 2.5, 1.0]
    y = [2.0, 3.0, 0.0, 1.0, INF, NAN]
    value, _ = eval_grad("truncatemod(x, y)", x=x, y=y)
    got = num(value)
    np.testing.assert_array_equal(got, [-0.0, -0.0, NAN, NAN, 2.5, NAN])
    assert np.signbit(got[0]) and np.signbit(got[1])  # the dividend's sign, zeros included


def test_truncatemod_agrees_with_sympy():
    res = invoke("check", "-e", "truncatemod(x * x, y) * y", "--at", "x=[1.5, -2.25]",
                 "--at", "y=[-0.7, 1.1]", "--format", "json")  # fmt: skip
    doc = json.loads(res.stdout)
    assert res.code == 0, res.stdout
    assert doc["method"] == "sympy" and doc["ok"]
