"""The values of gradcli derivative (orders 1 to 4) against independent references.

SymPy: the spec's SymPy form from gradcli check's translator (check/sympy_translation.py),
differentiated N times by sympy.diff and evaluated at the point; closed forms derived by
hand; central differences of the Hessian; and the Hessian command itself at order 2.
TensorFlow's nested tapes are compared in tests/conformance/test_tf_reference.py.
"""

import math

import numpy as np
import pytest
from helpers import SPECS, central_difference, invoke, run_json, spec

from gradcli.check.conventions import forward_values
from gradcli.cli.inputs import load_problem

sympy = pytest.importorskip("sympy")


def derivative(*args) -> dict:
    """The one block of `gradcli derivative ... --format json`."""
    doc = run_json("derivative", *args)
    [block] = doc["derivative"]["blocks"]
    return block


def sympy_derivative(expr: str, at: dict, seq: list[str]) -> np.ndarray:
    """d/dw_N ... d/dw_1 of the expression's SymPy form, at the point, by sympy.diff."""
    from gradcli.check import sympy_translation as symbolic

    at_args = tuple(f"{k}={v}" for k, v in at.items())
    problem = load_problem(None, expr, at_args, (",".join(dict.fromkeys(seq)),), None)
    graph = problem.graph
    values = forward_values(graph, problem.outputs)
    ctx = symbolic.Context(sympy, graph)
    exprs, natural = symbolic.translate_problem(ctx, problem, values)
    f = symbolic.substitute(ctx, symbolic.loss(ctx, problem, exprs), natural)
    tensor = np.array(f, dtype=object)
    for name in seq:
        syms = ctx.symbols[graph.names[name]]
        out = np.empty(tensor.shape + syms.shape, dtype=object)
        for idx in np.ndindex(tensor.shape):
            for jdx in np.ndindex(syms.shape):
                out[idx + jdx] = sympy.diff(tensor[idx], syms[jdx])
        tensor = out
    flat = list(tensor.reshape(-1))
    return ctx.numbers(flat, ctx.bindings(values)).reshape(tensor.shape)


# (expression, point, sequences): smooth ops, and kinked ones away from their kinks
SYMPY_CASES = [
    ("exp(x) * log(y)", {"x": 0.75, "y": 2.0}, ["x,x,x", "y,y,y,y", "x,y,y", "y,x,y,x"]),
    ("sum(tanh(x) + sigmoid(x))", {"x": [-0.75, 1.25]}, ["x,x,x", "x,x,x,x"]),
    ("sum(softplus(x) * sin(x))", {"x": [-2.0, 0.5]}, ["x,x,x", "x,x,x,x"]),
    ("x ** y", {"x": 1.5, "y": 2.5}, ["x,x,x", "y,y,y", "x,y,x,y"]),
    ("x / y + sqrt(x * y)", {"x": 0.5, "y": 2.0}, ["y,y,y", "x,y,y,x"]),
    ("sum(erf(x) + lgamma(x))", {"x": [0.5, 3.0]}, ["x,x,x", "x,x,x,x"]),
    (
        "sum(exp(x @ w))",
        {"x": "[[0.5, -1.0]]", "w": "[[0.25, -0.5], [0.75, 0.5]]"},
        ["w,w,w", "x,w,x"],
    ),
    ("mean(x * x * x * x) + sum(x) * prod(x)", {"x": [1.0, -3.0, 2.0]}, ["x,x,x"]),
    ("sum(softmax(x) * [1, -2, 0.5])", {"x": [-0.75, 0.5, 1.25]}, ["x,x,x"]),
    ("sum(relu(x) * x * x + abs(x) * x * x)", {"x": [-1.5, 2.0]}, ["x,x,x"]),
    ("sum(maximum(x, y) * x * y * x)", {"x": [1.0, 3.0], "y": [2.0, 2.0]}, ["x,x,y", "y,x,x,x"]),
]


@pytest.mark.parametrize(("expr", "at", "sequences"), SYMPY_CASES)
def test_derivatives_against_sympy(expr, at, sequences):
    at_args = [a for k, v in at.items() for a in ("--at", f"{k}={v}")]
    for seq in sequences:
        block = derivative("-e", expr, *at_args, "--wrt", seq)
        want = sympy_derivative(expr, at, seq.split(","))
        assert block["status"] == "connected"
        assert block["shape"] == list(want.shape)
        np.testing.assert_allclose(block["value"], want, rtol=1e-10, atol=1e-12, err_msg=seq)


def test_third_derivative_of_tanh_is_the_closed_form():
    # tanh' = 1 - t^2, tanh'' = -2 t (1 - t^2), tanh''' = (1 - t^2) (6 t^2 - 2)
    x = 0.5
    t = math.tanh(x)
    want = (1 - t * t) * (6 * t * t - 2)
    got = derivative("-e", "tanh(x)", "--at", f"x={x}", "--order", "3")["value"]
    assert got == pytest.approx(want, rel=1e-14)
    # and the fourth: d/dx of (1 - t^2)(6t^2 - 2) = (1 - t^2) (16 t - 24 t^3)
    got4 = derivative("-e", "tanh(x)", "--at", f"x={x}", "--order", "4")["value"]
    assert got4 == pytest.approx((1 - t * t) * (16 * t - 24 * t**3), rel=1e-13)


def test_exp_derivatives_of_every_order_are_exp():
    for order in range(1, 5):
        block = derivative("-e", "exp(x)", "--at", "x=0.3", "--order", str(order))
        assert block["value"] == pytest.approx(math.exp(0.3), rel=1e-15)
        assert block["wrt"] == ["x"] * order


def test_third_derivative_against_central_differences_of_the_hessian():
    # an independent route: the Hessian (its own command) differenced along each element
    expr = "sum(exp(x) * x[0] * x[1] + sin(x))"
    x0 = np.array([0.3, -0.7])
    got = np.asarray(derivative("-e", expr, "--at", f"x={x0.tolist()}", "--order", "3")["value"])

    def hessian_entry(j, k):
        def f(x):
            doc = run_json("hessian", "-e", expr, "--at", f"x={x.tolist()}")
            return doc["hessian"]["x"]["x"]["value"][j][k]

        return f

    for j in range(2):
        for k in range(2):
            row = central_difference(hessian_entry(j, k), x0, eps=1e-5)
            np.testing.assert_allclose(got[j, k], row, rtol=1e-6, atol=1e-8)


def test_order_one_is_evals_gradient_and_order_two_is_the_hessian():
    # every shipped spec with a scalar output: order 2 is the Hessian's diagonal blocks, bit
    # for bit (None where the Hessian's is None); --wrt a,b gives its off-diagonal ones
    names = [p.name for p in sorted(SPECS.glob("*.yaml"))]
    seen = 0
    for name in names:
        hess = invoke("hessian", spec(name), "--format", "json")
        if hess.code != 0:
            continue
        import json

        blocks = json.loads(hess.stdout)["hessian"]
        floats = [a for a in blocks if blocks[a][a]["dtype"].startswith("float")]
        for a in floats:
            for b in floats:
                got = derivative(spec(name), "--wrt", f"{a},{b}")
                want = blocks[a][b]
                assert (got["status"], got["shape"]) == (want["status"], want["shape"]), name
                np.testing.assert_array_equal(
                    np.asarray(got["value"], dtype=float), np.asarray(want["value"], dtype=float)
                )
                seen += 1
        grads = run_json("eval", spec(name))["gradients"]
        for a in floats:
            got = derivative(spec(name), "--wrt", a)
            assert got["value"] == grads[a]["value"], (name, a)
    assert seen > 30


def test_relu_third_derivative_is_a_connected_zero_and_abs_is_none():
    # TensorFlow: ReluGrad's gradient w.r.t. its features is zeros (connected), all orders;
    # abs'' is sign's zeros_like, which has no gradient: abs''' is None
    relu = derivative("-e", "sum(relu(x))", "--at", "x=[-1, 0, 2]", "--order", "3")
    assert relu["status"] == "connected" and np.array_equal(relu["value"], np.zeros((3, 3, 3)))
    absolute = derivative("-e", "sum(abs(x))", "--at", "x=[-1, 0, 2]", "--order", "3")
    assert (absolute["status"], absolute["value"]) == ("unconnected", None)


def test_a_derivative_through_a_custom_gradient(tmp_path):
    # custom_relu.yaml's grad is 2 * (x > 0) * upstream: its second derivative is None (the
    # gradient uses x only through a comparison), so every later order is None too
    block = derivative(spec("custom_relu.yaml"), "--wrt", "x,x,x")
    assert (block["status"], block["value"]) == ("unconnected", None)
    zero = derivative(spec("custom_relu.yaml"), "--wrt", "x,x,x", "--unconnected", "zero")
    assert zero["status"] == "unconnected" and np.array_equal(zero["value"], np.zeros((3,) * 3))


CUSTOM_COND = """\
inputs:
  x: 1.5
functions:
  cube:
    params: [v]
    body: v * v * v
    grad: "cond(dy > 0, dy * 3 * v * v, dy * v)"
graph:
  f: cube(x) * x
"""


def test_a_custom_gradient_branching_on_its_upstream_gradient(tmp_path):
    # the cond picks its branch per seed (one gradient graph per one-hot seed): with the
    # positive one-hot seeds f = x^4 throughout, so 4x^3, 12x^2, 24x, 24 at x = 1.5
    path = tmp_path / "c.yaml"
    path.write_text(CUSTOM_COND)
    got = [derivative(str(path), "--order", str(n))["value"] for n in range(1, 5)]
    assert got == [13.5, 27.0, 36.0, 24.0]
    assert run_json("hessian", str(path))["hessian"]["x"]["x"]["value"] == 27.0
