"""lgamma, digamma, polygamma (core/ops/gamma.py) and cummax, cummin, cumulative_logsumexp
(core/ops/cumulative.py): TensorFlow's values to the last bit, finite differences of first
and second order, tie conventions worked by hand, SymPy checks, explain and NaN/Inf words.

Expected values come from TensorFlow's stored numbers (tests/data/tf_reference.json, whose
cases are in tools/tf_cases_gamma.py), mpmath at 30 digits, finite differences, or hand
derivation; tests/conformance/test_tf_reference.py compares every stored case as well.
"""

from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
from helpers import TEST_DATA, central_difference, eval_grad, invoke, num, run_json, value_grad_hvp

from gradcli.api import problem_from_expression
from gradcli.core.executor import run
from gradcli.core.ops import gamma_kernels as kernels

RNG = np.random.default_rng(1729)
DATA = json.loads((TEST_DATA / "tf_reference.json").read_text())
CASES = {c["id"]: c for c in DATA["cases"]}
INF, NAN = math.inf, math.nan


def stored(enc) -> np.ndarray:
    flat = [float(v) if isinstance(v, str) else v for v in np.ravel(np.array(enc["value"], object))]
    return np.array(flat, dtype=np.float64).reshape(enc["shape"])


def ulps(a, b) -> np.ndarray:
    """Units in the last place between float64 arrays (0 where both are the same nan/inf)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    ia, ib = a.view(np.int64), b.view(np.int64)
    # map the sign-magnitude bit patterns onto a line where adjacent floats are 1 apart
    la = np.where(ia < 0, np.int64(-(2**63)) - ia, ia)
    lb = np.where(ib < 0, np.int64(-(2**63)) - ib, ib)
    return np.where(same, 0, np.abs(la.astype(np.float64) - lb.astype(np.float64)))


# --- the forwards: TensorFlow's float64 numbers, bit for bit -----------------------------------
GAMMA_CASES = {
    "lgamma_grid": lambda at: kernels.lgamma(at["x"]),
    "lgamma_poles": lambda at: kernels.lgamma(at["x"]),
    "lgamma_edges": lambda at: kernels.lgamma(at["x"]),
    "digamma_grid": lambda at: kernels.digamma(at["x"]),
    "digamma_poles": lambda at: kernels.digamma(at["x"]),
    "digamma_edges": lambda at: kernels.digamma(at["x"]),
    "polygamma_1": lambda at: kernels.polygamma(1.0, at["x"]),
    "polygamma_2": lambda at: kernels.polygamma(2.0, at["x"]),
    "polygamma_3": lambda at: kernels.polygamma(3.0, at["x"]),
    "polygamma_6": lambda at: kernels.polygamma(6.0, at["x"]),
    "polygamma_broadcast": lambda at: kernels.polygamma(at["a"], at["x"]),
    "polygamma_orders": lambda at: kernels.polygamma(at["a"], at["x"]),
    "polygamma_poles": lambda at: kernels.polygamma(at["a"], at["x"]),
    "polygamma_very_negative": lambda at: kernels.polygamma(at["a"], at["x"]),
}


def test_the_gamma_kernels_are_tensorflows_to_the_last_bit():
    # TensorFlow's CPU kernels call the C library's lgamma, log, tan, pow and exp; gradcli
    # calls the same functions in the same order of arithmetic: worst distance 0 ulps over
    # the stored grids (ordinary, negative non-integer, tiny, huge arguments, poles, orders
    # up to 171). The values cover each kernel's every branch.
    worst = {}
    for case_id, forward in GAMMA_CASES.items():
        case = CASES[case_id]
        at = {k: np.array(v, dtype=np.float64) for k, v in case["at"].items()}
        worst[case_id] = float(np.max(ulps(forward(at), stored(case["outputs"]["f"]))))
    assert worst == dict.fromkeys(GAMMA_CASES, 0.0)


def test_pythons_math_lgamma_is_not_the_c_librarys():
    # why the C library's lgamma is called through ctypes: CPython's own lgamma (a Lanczos
    # sum) is far from it near the zeros of lgamma, where TensorFlow's values are tiny
    case = CASES["lgamma_grid"]
    xs = np.array(case["at"]["x"])
    tf_values = stored(case["outputs"]["f"])
    python = np.array([math.lgamma(x) for x in xs])
    assert np.max(ulps(python, tf_values)) > 1000
    assert np.max(ulps(kernels.lgamma(xs), tf_values)) == 0


def _mp(fn, *args):
    with mpmath.workdps(30):
        return float(fn(*args))


ACCURACY = [
    # (kernel, mpmath function, arguments away from the function's zeros, relative error)
    (kernels.lgamma, lambda x: mpmath.re(mpmath.loggamma(x)),
     [0.25, 3.5, 17.75, 1e5, -0.5, -3.25, -20.625], 1e-14),
    (kernels.digamma, mpmath.digamma,
     [1e-8, 0.25, 3.5, 9.5, 10.5, 1e4, 1e20, -0.25, -4.75], 1e-14),
    (lambda x: kernels.polygamma(1.0, x), lambda x: mpmath.psi(1, x),
     [1e-3, 0.5, 9.0, 1e3], 1e-14),
    (lambda x: kernels.polygamma(4.0, x), lambda x: mpmath.psi(4, x), [0.5, 2.5, 30.0], 1e-14),
    # below 0 Cephes' zeta has no reflection: its direct sum cancels (TensorFlow's accuracy)
    (lambda x: kernels.polygamma(4.0, x), lambda x: mpmath.psi(4, x), [-1.5, -7.25], 1e-11),
]  # fmt: skip


@pytest.mark.parametrize(("kernel", "reference", "xs", "rtol"), ACCURACY)
def test_the_kernels_agree_with_mpmath(kernel, reference, xs, rtol):
    got = np.array([float(kernel(np.float64(x))) for x in xs])
    want = np.array([_mp(reference, mpmath.mpf(x)) for x in xs])
    np.testing.assert_allclose(got, want, rtol=rtol)


def test_poles_and_edges_follow_tensorflow():
    # worked from the kernels' definitions and checked against TensorFlow's stored values:
    # lgamma's poles are inf, digamma's nan; polygamma(n, pole) is inf for odd n, nan for even
    value, grads = eval_grad("lgamma(x)", x=[0.0, -1.0, -1e20, 2.0])
    np.testing.assert_equal(num(value), [INF, INF, INF, 0.0])
    np.testing.assert_equal(num(grads["x"])[:3], [NAN, NAN, NAN])
    value, grads = eval_grad("digamma(x)", x=[0.0, -3.0])
    np.testing.assert_equal(num(value), [NAN, NAN])
    np.testing.assert_equal(num(grads["x"]), [INF, INF])  # polygamma(1, pole)
    value, _ = eval_grad("polygamma(a, x)", a=[1.0, 2.0, 0.5, -1.0], x=[-2.0, -2.0, 1.0, 1.0])
    np.testing.assert_equal(num(value), [INF, NAN, NAN, NAN])


def test_no_gradient_flows_to_the_order():
    _, grads = eval_grad("polygamma(a, x)", a=[1.0, 2.0], x=[0.5, 1.5])
    assert grads["a"] is None
    doc = run_json(
        "eval", "-e", "polygamma(a, x)", "--at", "a=[1, 2]", "--at", "x=[0.5, 1.5]",
        "--unconnected", "zero", "--check", "off",
    )  # fmt: skip
    assert doc["gradients"]["a"]["value"] == [0.0, 0.0]


def test_empty_tensors():
    for expr in ("lgamma(x)", "digamma(x)", "polygamma(1, x)", "cummax(x)",
                 "cumulative_logsumexp(x)"):  # fmt: skip
        value, grads = eval_grad(f"sum({expr})", x=[])
        assert (num(value), grads["x"]) == (0.0, []), expr


def test_polygamma_refuses_what_tensorflow_would_take_hours_for():
    # Cephes' zeta adds one term per unit of |x| up to x > 9: at -1e8 TensorFlow takes a
    # second, at -1e15 days; gradcli stops past 2**24 terms with a positioned error
    assert kernels.polygamma(1.0, -1e6 - 0.5) == pytest.approx(math.pi**2, rel=1e-6)
    res = invoke("eval", "-e", "polygamma(1, x)", "--at", "x=-100000000.5")
    assert res.code == 2
    assert "gradcli stops past 16,777,216 terms" in res.stderr


# --- finite differences, first and second order -----------------------------------------------
def _negative(shape):
    """Non-integers in (-4, 0), at least 0.15 from the poles."""
    return -RNG.integers(0, 4, size=shape) - RNG.uniform(0.15, 0.85, size=shape)


def _spread(shape):
    """Distinct values: no ties for the running extremes."""
    return RNG.permutation(np.linspace(-2.0, 2.0, int(np.prod(shape)))).reshape(shape) + (
        RNG.uniform(-0.05, 0.05, size=shape)
    )


FD_CASES = [
    ("lgamma(x)", lambda s: RNG.uniform(0.2, 6.0, s)),
    ("lgamma(x)", _negative),
    ("digamma(x)", lambda s: RNG.uniform(0.3, 12.0, s)),
    ("digamma(x)", _negative),
    ("polygamma(1, x)", lambda s: RNG.uniform(0.5, 5.0, s)),
    ("polygamma(3, x)", _negative),
    ("polygamma([[0], [2]], x)", lambda s: RNG.uniform(0.5, 5.0, s)),
    ("lgamma(x) * digamma(-x)", lambda s: RNG.uniform(0.2, 0.8, s)),
    ("cummax(x, axis=1)", _spread),
    ("cummin(x, axis=0, reverse=true)", _spread),
    ("cummax(x, axis=1, exclusive=true)[:, 1:]", _spread),
    ("cummin(x, axis=-1, exclusive=true, reverse=true)[:, :-1]", _spread),
    ("cumulative_logsumexp(x, axis=1)", lambda s: RNG.uniform(-2.0, 2.0, s)),
    ("cumulative_logsumexp(x, axis=0, reverse=true)", lambda s: RNG.uniform(-2.0, 2.0, s)),
    ("cumulative_logsumexp(x, axis=1, exclusive=true)[:, 1:]", lambda s: RNG.uniform(-2, 2, s)),
]


@pytest.mark.parametrize(("call", "draw"), FD_CASES)
def test_first_and_second_order_against_finite_differences(call, draw):
    x = draw((2, 4))
    problem = problem_from_expression(call, {"x": x}, wrt=[])
    value = np.asarray(run(problem.graph, list(problem.outputs))[problem.outputs[0]])
    assert np.isfinite(value).all(), call
    inputs = {"x": x, "w": RNG.uniform(0.5, 1.5, size=value.shape)}
    expr = f"sum(({call}) ** 2 * w)"  # squared: a nonzero second derivative for the scans too
    _, g, _ = value_grad_hvp(expr, inputs, "x")

    def f(x):
        return value_grad_hvp(expr, {**inputs, "x": x}, "x")[0]

    np.testing.assert_allclose(g, central_difference(f, x), rtol=1e-6, atol=1e-7, err_msg=call)
    v = RNG.uniform(-1, 1, size=x.shape)
    _, _, hv = value_grad_hvp(expr, inputs, "x", v)

    def gv(x):
        return float(np.sum(value_grad_hvp(expr, {**inputs, "x": x}, "x")[1] * v))

    numeric = central_difference(gv, x, eps=1e-5)
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-6, err_msg=call)


# --- cummax and cummin at ties: the earliest element holding the extreme (by hand) --------------
TIES = [
    # (expression, x, gradient of sum(expr * w) with w = [1, 2, 3, ...]), worked by hand from
    # the fold out[j] = maximum(out[j-1], x[j]), whose gradient goes to out[j-1] at a tie
    ("cummax(x)", [1.0, 3.0, 2.0, 3.0, 5.0, 0.0], [1.0, 2 + 3 + 4, 0.0, 0.0, 5 + 6, 0.0]),
    ("cummax(x)", [2.0, 2.0, 2.0], [1 + 2 + 3, 0.0, 0.0]),
    ("cummax(x, reverse=true)", [3.0, 1.0, 3.0], [0.0, 0.0, 1 + 2 + 3]),
    ("cummin(x)", [1.0, 1.0, 0.0, 0.0], [1 + 2, 0.0, 3 + 4, 0.0]),
    ("cummax(x, exclusive=true)", [2.0, 2.0, 1.0, 4.0], [2 + 3 + 4, 0.0, 0.0, 0.0]),
    ("cummax(x)", [1.0, NAN, 2.0], [1.0, 2.0, 3.0]),  # nan >= 2 fails: x[2] takes its own
]


@pytest.mark.parametrize(("expr", "x", "want"), TIES)
def test_ties_go_to_the_earliest_element_holding_the_extreme(expr, x, want):
    w = [float(k + 1) for k in range(len(x))]
    _, grads = eval_grad(f"sum({expr} * w)", x=x, w=w)
    np.testing.assert_array_equal(num(grads["x"]), want)


def test_the_running_extremes_values():
    value, _ = eval_grad("cummax(x) + cummin(x, reverse=true) * 10", x=[1.0, 3.0, 2.0, 0.5])
    assert num(value).tolist() == [1.0 + 5.0, 3.0 + 5.0, 3.0 + 5.0, 3.0 + 5.0]
    value, _ = eval_grad("cummin(x, exclusive=true)", x=[1.0, 3.0])
    assert num(value).tolist() == [INF, 1.0]


# --- gradcli check: SymPy and finite differences agree ----------------------------------------
CHECKS = [
    ("lgamma(x) * digamma(x) + polygamma(2, x)", {"x": "[-2.5, 0.75, 3.0]"}, "sympy"),
    ("lgamma(x * y) + polygamma(1, y) * x", {"x": "1.5", "y": "-0.25"}, "sympy"),
    ("polygamma(a, x) * x", {"a": "[0, 3]", "x": "[1.5, 4.0]"}, "sympy"),
    ("sum(cummax(x) * [1, 2, 3, 4]) + sum(cummin(x, reverse=true) ** 2)", {"x": "[1, 3, 3, 2]"},
     "sympy"),
    ("sum(cummax(x, axis=1, exclusive=true)[:, 1:] * x[:, 1:])", {"x": "[[2, 1, 2], [0, 4, 1]]"},
     "sympy"),
    ("sum(cumulative_logsumexp(x, axis=1, reverse=true) * x)", {"x": "[[0.5, -1, 2], [3, 0, 1]]"},
     "sympy"),
    ("sum(cummax(x) * [1, 2, 3, 4])", {"x": "[1, 3, 3, 2]"}, "fd"),  # a tie frozen at the point
    ("lgamma(x) + digamma(x) + polygamma(1, x)", {"x": "[-1.5, 2.5]"}, "fd"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at", "method"), CHECKS)
def test_check_agrees(expr, at, method):
    args = [a for k, v in at.items() for a in ("--at", f"{k}={v}")]
    res = invoke("check", "-e", expr, *args, "--method", method, "--format", "json")
    doc = json.loads(res.stdout)
    assert res.code == 0, res.stdout
    assert doc["method"] == method and doc["ok"]


def test_check_shows_the_derivatives_as_polygamma():
    res = invoke("check", "-e", "lgamma(x) + digamma(x)", "--at", "x=-2.5", "--symbolic")
    assert res.code == 0
    assert "d f/d x = polygamma(0, x) + polygamma(1, x)" in res.stdout


# --- explain and NaN/Inf diagnosis -------------------------------------------------------------
EXPLAINED = [
    ("sum(cummax(x) * w)", ["x=[1, 3, 2, 3, 5, 0]", "w=[1, 2, 3, 4, 5, 6]"], "cummax",
     "cummax(x) uses 3 of 6 elements of x; the other 3 get no gradient"),
    # scanned from the end: 2 then 0 hold the row's minimum (1 never does); 5, 4, 3 each do
    ("sum(cummin(x, axis=1, reverse=true))", ["x=[[1, 0, 2], [3, 4, 5]]"], "cummin",
     "cummin(x, axis=1, reverse=true) uses 5 of 6 elements of x; the other 1 get no gradient"),
]  # fmt: skip


@pytest.mark.parametrize(("expr", "at", "op", "detail"), EXPLAINED)
def test_explain_counts_the_elements_that_never_hold_the_extreme(expr, at, op, detail):
    args = [a for value in at for a in ("--at", value)]
    doc = run_json("explain", "-e", expr, *args, "--wrt", "x", code=1)
    (pair,) = doc["pairs"]
    assert pair["status"] == "partially_zero"
    (cause,) = pair["causes"]
    assert (cause["kind"], cause["op"], cause["detail"]) == ("unselected", op, detail)


def test_explain_says_no_gradient_flows_to_the_order():
    doc = run_json("explain", "-e", "polygamma(a, x)", "--at", "a=2", "--at", "x=1.5", "--wrt",
                   "a", code=1)  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["status"] == "unconnected"
    assert pair["causes"][0]["detail"].endswith("polygamma passes no gradient to a")


def _warnings(expr, *at):
    doc = run_json("eval", "-e", expr, *at, "--check", "off")
    return {(w["what"], w["name"]): w["origins"][0] for w in doc["warnings"]}


def test_poles_are_poles_and_overflows_overflows():
    warned = _warnings("lgamma(x)", "--at", "x=-2")
    assert warned["output", "f"]["detail"] == "lgamma(x) gives inf (x = -2)"
    assert warned["gradient", "x"]["origin"] == "singular_derivative"
    assert warned["gradient", "x"]["detail"] == (
        "the derivative of lgamma(x) is nan at the point itself (x = -2)"
    )
    warned = _warnings("lgamma(x)", "--at", "x=1e306")
    assert warned["output", "f"]["detail"] == "lgamma(x) overflows to inf (x = 1e+306)"
    warned = _warnings("digamma(x) * y", "--at", "x=0", "--at", "y=2")
    assert warned["output", "f"]["detail"] == "digamma(x) gives nan (x = 0)"
    assert warned["gradient", "x"]["origin"] == "singular_derivative"
    warned = _warnings("polygamma(1, x)", "--at", "x=-3")
    assert warned["output", "f"]["detail"] == "polygamma(1, x) gives inf (x = -3)"
