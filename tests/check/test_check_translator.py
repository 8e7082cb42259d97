"""The SymPy translator op by op: SymPy's derivative of the forward graph against the core's
gradient AND against central differences (tests/helpers.py), on random points, so that the
reference is itself checked by something independent of both.

Kinks are checked separately, with values derived by hand from the core's conventions.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import UNARY_DOMAINS, central_difference
from helpers import draw as shared_draw

from gradcli.api import grad
from gradcli.check.conventions import needed
from gradcli.check.run import run_check


@pytest.fixture(autouse=True)
def fresh_limits(monkeypatch):
    """Each test starts from the default limits (a CLI run replaces limits.current)."""
    from gradcli.runtime import limits

    monkeypatch.setattr(limits, "current", limits.Limits())


RNG = np.random.default_rng(4)


def draw(shape, **domain):
    return shared_draw(RNG, shape, **domain)


def sympy_reference(expr, inputs):
    """(SymPy's gradients by name, the core's, the check report) of sum(W * expr)."""
    value = grad(expr, inputs).outputs["f"]
    weights = RNG.uniform(0.5, 1.5, size=np.shape(value))
    loss, inputs = f"sum(W * ({expr}))", {**inputs, "W": weights}
    names = [n for n in inputs if n != "W"]
    ev = grad(loss, inputs, wrt=names)
    report = run_check(ev, "sympy")
    assert report.method == "sympy", report.reason
    return report, loss, inputs, names


def check_translation(expr, inputs, rtol=1e-6, atol=1e-8):
    report, loss, all_inputs, names = sympy_reference(expr, inputs)
    for name in names:
        c = report.inputs[name]
        assert c.verdict == "agree", (expr, name, c.autodiff, c.reference)

        def f(v, name=name):
            return float(grad(loss, {**all_inputs, name: v}, wrt=[]).outputs["f"])

        numeric = central_difference(f, np.asarray(all_inputs[name], dtype=float))
        np.testing.assert_allclose(c.reference, numeric, rtol=1e-5, atol=1e-7, err_msg=expr)


UNARY = {**UNARY_DOMAINS, "floor": {}}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    # sign and floor have no translation: constants at the point (zero gradient)
    check_translation(f"{name}(x) + x * 0.5", {"x": draw((2, 3), **UNARY[name])})


BINARY = {
    "x + y": ({}, {}),
    "x - y": ({}, {}),
    "x * y": ({}, {}),
    "x / y": ({}, {"away": 0.5}),
    "x ** y": ({"lo": 0.4, "hi": 2.0}, {"lo": -1.5, "hi": 1.5}),
    "maximum(x, y)": ({}, {}),
    "minimum(x, y)": ({}, {}),
    "x @ y": ({}, {}),
}


@pytest.mark.parametrize("expr", sorted(BINARY))
def test_binary(expr):
    dx, dy = BINARY[expr]
    ys = (3, 2) if "@" in expr else (3,)
    check_translation(expr, {"x": draw((2, 3), **dx), "y": draw(ys, **dy)})


STRUCTURE = [
    "sum(x, axis=0)",
    "mean(x, axis=1, keepdims=true)",
    "max(x, axis=1)",
    "min(x)",
    "prod(x, axis=0)",
    "logsumexp(x, axis=-1)",
    "softmax(x)",
    "softmax(x, axis=0)",
    "cumsum(x, axis=1, exclusive=true)",
    "cumprod(x, reverse=true)",
    "reshape(x, [3, 2])",
    "transpose(x)",
    "broadcast_to(x[0], [4, 3])",
    "x[1, ::-1]",
    "concat([x, x * x], axis=1)",
    "stack([x, sin(x)], axis=-1)",
    "where(x > 0, x * x, 3 * x)",
    "clip(x, -0.5, 0.5)",
    "cast(x, 'float64') * 2",
    "cond(sum(x) > -100, sin(x), cos(x))",
    "cond(sum(x) < -100, sin(x), cos(x))",
    "[x[0], 2 * x[1]]",
]


@pytest.mark.parametrize("expr", STRUCTURE)
def test_structure_and_reductions(expr):
    lo = 0.5 if "prod" in expr else -2.0
    check_translation(expr, {"x": draw((2, 3), lo=lo, away=0.1)})


def test_custom_function_uses_its_grad_expression():
    text = """\
inputs:
  x: [0.5, -1.5]
functions:
  soft:
    params: [v]
    body: v * v
    grad: dy * 3 * v
graph:
  y: sum(sin(soft(x)))
"""
    ev = grad(text, {}, spec=True)
    report = run_check(ev, "sympy")
    # d sin(v^2)/dx taken with the custom derivative 3v: cos(x^2) * 3x
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(report.inputs["x"].reference, np.cos(x * x) * 3 * x, rtol=1e-12)
    assert report.ok


# --- kinks: the side the core takes (hand-derived values) ---------------------------------
KINKS = [
    ("relu(x)", {"x": [0.0, 1.0, -1.0]}, {"x": [0.0, 1.0, 0.0]}),
    ("abs(x)", {"x": [0.0, 2.0, -2.0]}, {"x": [0.0, 1.0, -1.0]}),
    # a tie selects the first argument
    ("maximum(x, y)", {"x": [1.0, 2.0], "y": [1.0, 3.0]}, {"x": [1.0, 0.0], "y": [0.0, 1.0]}),
    ("minimum(x, y)", {"x": [1.0, 2.0], "y": [1.0, 3.0]}, {"x": [1.0, 1.0], "y": [0.0, 0.0]}),
    # a tie in a max reduction splits the gradient evenly
    ("max(x)", {"x": [2.0, 1.0, 2.0]}, {"x": [0.5, 0.0, 0.5]}),
    # clip at either bound: the gradient goes to x
    ("clip(x, -1, 1)", {"x": [-1.0, 1.0, 2.0, 0.0]}, {"x": [1.0, 1.0, 0.0, 1.0]}),
    # x ** y at x = 0: d/dx = y * 0**(y-1) = 2 * 0 = 0; d/dy = 0 (log(0) never used)
    ("pow(x, y)", {"x": [0.0], "y": [2.0]}, {"x": [0.0], "y": [0.0]}),
    # cumprod at a zero element: TensorFlow's div_no_nan gives 0 (the true derivative of
    # sum(cumprod) w.r.t. x[1] is x0 + x0 * x2 = 8); d/dx0 = 1 + x1 + x1 x2 = 1, d/dx2 = 0
    ("cumprod(x)", {"x": [2.0, 0.0, 3.0]}, {"x": [1.0, 0.0, 0.0]}),
]


@pytest.mark.parametrize(("expr", "at", "expected"), KINKS)
@pytest.mark.parametrize("method", ["sympy", "fd"])
def test_kinks(expr, at, expected, method):
    ev = grad(f"sum({expr})", at)
    report = run_check(ev, method)
    assert report.method == method
    for name, value in expected.items():
        assert ev.gradients[name].tolist() == value
        np.testing.assert_allclose(report.inputs[name].reference, value, atol=1e-9)
    assert report.ok


# --- random trees: SymPy's reference against finite differences ------------------------------
LEAVES = ["x", "y", "0.7"]
UNARIES = ["sin", "cos", "tanh", "exp", "sigmoid", "square", "softplus"]
BINARIES = ["+", "-", "*"]


def random_tree(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        return str(rng.choice(LEAVES))
    if rng.random() < 0.5:
        return f"{rng.choice(UNARIES)}({random_tree(rng, depth - 1)})"
    op = rng.choice(BINARIES)
    return f"({random_tree(rng, depth - 1)} {op} {random_tree(rng, depth - 1)})"


@pytest.mark.parametrize("seed", range(12))
def test_random_trees_sympy_agrees_with_finite_differences(seed):
    rng = np.random.default_rng(seed)
    expr = random_tree(rng, 4)
    at = {"x": float(rng.uniform(-1, 1)), "y": float(rng.uniform(-1, 1))}
    expr = f"{expr} + x * y"  # both inputs always used
    ev = grad(expr, at)
    sym = run_check(ev, "sympy")
    assert sym.method == "sympy" and sym.ok, expr
    for name in ("x", "y"):

        def f(v, name=name):
            return float(grad(expr, {**at, name: float(v)}, wrt=[]).outputs["f"])

        numeric = central_difference(f, np.array(at[name]))
        np.testing.assert_allclose(sym.inputs[name].reference, numeric, rtol=1e-6, atol=1e-7)


def test_needed_is_iterative_on_a_long_chain():
    text = "inputs:\n  x0: 0.5\ngraph:\n" + "".join(
        f"  x{i}: x{i - 1} * 0.5\n" for i in range(1, 3001)
    )
    ev = grad(text, {}, spec=True)
    graph = ev.problem.graph
    assert len(needed(graph, ev.problem.outputs)) >= 3001


# --- the internal ops (used only inside gradient graphs): translation = forward -----------
INTERNAL = {
    "relu_grad": ([0.5, -1.0, 2.0, 0.0], [1.0, 0.0, 3.0, 0.0]),
    "sqrt_grad": ([0.5, 1.5, 2.0, 3.0], [1.0, 0.0, -2.0, 0.5]),
    "tanh_grad": ([0.5, -0.2, 0.9, 0.0], [1.0, 2.0, -1.0, 0.5]),
    "sigmoid_grad": ([0.5, 0.2, 0.9, 0.1], [1.0, 2.0, -1.0, 0.5]),
    "mul_no_nan": ([np.inf, 2.0, -1.0, np.nan], [0.0, 3.0, 0.5, 0.0]),
}


@pytest.mark.parametrize("name", sorted(INTERNAL))
def test_internal_op_translation_matches_its_forward(name):
    import sympy

    from gradcli.core.ops import REGISTRY

    a, b = (np.array(v) for v in INTERNAL[name])
    op = REGISTRY[name]
    with np.errstate(all="ignore"):
        expected = np.asarray(op.fn({})(a, b), dtype=float)
    xs = [sympy.Symbol(f"s{i}", real=True) for i in range(2)]
    for k in range(a.size):
        args = [np.array(x, dtype=object) for x in xs]
        out = op.sympy(sympy, {}, args, [a[k], b[k]])[()]
        got = float(sympy.sympify(out).subs({xs[0]: a[k], xs[1]: b[k]}))
        np.testing.assert_allclose(got, expected[k], rtol=1e-12, err_msg=f"{name} at {k}")


def test_getitem_grad_translation_scatters():
    import sympy

    from gradcli.core.ops import REGISTRY

    attrs = {"shape": [3, 2], "index": (slice(1, 3), 0)}
    g = np.array([sympy.Symbol("a"), sympy.Symbol("b")], dtype=object)
    out = REGISTRY["getitem_grad"].sympy(sympy, attrs, [g], [np.zeros(2)])
    assert out.tolist() == [[0, 0], [sympy.Symbol("a"), 0], [sympy.Symbol("b"), 0]]
