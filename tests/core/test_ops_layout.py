"""Layout ops (squeeze, expand_dims, reverse/flip): finite differences (first and second
order), the forward against numpy, check against SymPy, and their shape errors.

Values and gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_layout.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import central_difference, forward, invoke, run_json, value_grad_hvp

from gradcli.api import problem_from_expression
from gradcli.runtime.errors import GradcliError

RNG = np.random.default_rng(20261124)


# call, x's shape, numpy's forward
CASES = [
    ("squeeze(x)", (3, 1, 2, 1), np.squeeze),
    ("squeeze(x, 1)", (3, 1, 2, 1), lambda x: np.squeeze(x, 1)),
    ("squeeze(x, axis=-1)", (3, 1, 2, 1), lambda x: np.squeeze(x, -1)),
    ("squeeze(x, axis=[1, 3])", (3, 1, 2, 1), lambda x: np.squeeze(x, (1, 3))),
    ("squeeze(x)", (1, 1), np.squeeze),
    ("squeeze(x)", (2, 3), np.squeeze),
    ("expand_dims(x, 0)", (2, 3), lambda x: np.expand_dims(x, 0)),
    ("expand_dims(x, 1)", (2, 3), lambda x: np.expand_dims(x, 1)),
    ("expand_dims(x, axis=2)", (2, 3), lambda x: np.expand_dims(x, 2)),
    ("expand_dims(x, -1)", (2, 3), lambda x: np.expand_dims(x, -1)),
    ("expand_dims(x, -3)", (2, 3), lambda x: np.expand_dims(x, 0)),
    ("expand_dims(x, 0)", (), lambda x: np.expand_dims(x, 0)),
    ("reverse(x, 0)", (4,), lambda x: x[::-1]),
    ("reverse(x, [1])", (2, 3, 4), lambda x: x[:, ::-1]),
    ("reverse(x, axis=[0, -1])", (2, 3, 4), lambda x: x[::-1, :, ::-1]),
    ("reverse(x, [])", (2, 3), lambda x: x),
    ("flip(x, 1)", (2, 3), lambda x: x[:, ::-1]),
    ("flip(x, axis=[2, 0, 1])", (2, 3, 4), lambda x: x[::-1, ::-1, ::-1]),
]


@pytest.mark.parametrize(("call", "shape", "numpy"), CASES)
def test_first_and_second_order_against_finite_differences(call, shape, numpy):
    x = RNG.uniform(-1, 1, size=shape)
    np.testing.assert_array_equal(forward(call, {"x": x}), numpy(x))
    w = RNG.uniform(0.5, 1.5, size=np.shape(numpy(x)))
    inputs = {"x": x, "w": w}
    expr = f"sum({call} ** 3 * w)"
    value, g, _ = value_grad_hvp(expr, inputs, "x")
    assert value == pytest.approx(float(np.sum(numpy(x) ** 3 * w)), rel=1e-12)

    def f(x):
        return value_grad_hvp(expr, {**inputs, "x": x}, "x")[0]

    np.testing.assert_allclose(g, central_difference(f, x), rtol=1e-6, atol=1e-8)
    v = RNG.uniform(-1, 1, size=shape)
    _, _, hv = value_grad_hvp(expr, inputs, "x", v)

    def gv(x):
        return float(np.sum(value_grad_hvp(expr, {**inputs, "x": x}, "x")[1] * v))

    numeric = central_difference(gv, x, eps=1e-5)
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7, err_msg=call)


CHECKS = [
    ("squeeze(x) ** 2 * [1, 2, 3]", ["x=[[1], [2], [3]]"]),
    ("squeeze(x, axis=[0, 2]) * sin(squeeze(x))", ["x=[[[1], [-2], [3]]]"]),
    ("expand_dims(x, 0) ** 2 * [[1], [2]]", ["x=[1, -2]"]),
    ("expand_dims(x, -1) * cos(expand_dims(x, 0))", ["x=[[1, 2], [3, -1]]"]),
    ("reverse(x, 0) * x * [1, 2, 3]", ["x=[1, -2, 0.5]"]),
    ("flip(x, [0, 1]) * sin(x)", ["x=[[1, 2, 3], [3, -1, 0]]"]),
]


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_check_against_sympy(expr, at):
    args = [a for spec in at for a in ("--at", spec)]
    res = invoke("check", "-e", f"sum({expr})", *args, "--format", "json")
    assert res.code == 0, (res.stdout, res.stderr)
    assert "sympy" in res.stdout.lower()


ERRORS = [
    ("squeeze(x, 0)", (3, 1), "cannot squeeze axis 0 of size 3"),
    ("squeeze(x, 2)", (3, 1), "out of range"),
    ("expand_dims(x, 3)", (3, 1), r"axis 3 is out of range .* \[-3, 2\]"),
    ("expand_dims(x, -4)", (3, 1), "axis -4 is out of range"),
    ("reverse(x, 2)", (3, 1), "reverse: axis 2 is out of range"),
    ("flip(x, [0, -2])", (3, 1), "reverse: axis 0 is repeated"),
]


@pytest.mark.parametrize(("call", "shape", "message"), ERRORS)
def test_shape_errors(call, shape, message):
    with pytest.raises(GradcliError, match=message):
        problem_from_expression(call, {"x": np.zeros(shape)}, wrt=[])


def test_explain_routes_reverse_zeros_to_the_reversed_elements():
    # relu cuts x[0]; the weight 0 sits on reverse's output element 0, which is x[2]: two
    # distinct zero elements (an identity map would put both on x[0])
    doc = run_json(
        "explain", "-e", "sum(reverse(relu(x), 0) * [0, 1, 1])", "--at", "x=[-1, 2, 3]", code=1,
    )  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["zero_elements"] == 2
    assert {c["kind"] for c in pair["causes"]} == {"mask", "inactive"}


def test_flip_is_reverse():
    x = RNG.uniform(-1, 1, size=(2, 3))
    flipped = forward("flip(x, [1])", {"x": x})
    np.testing.assert_array_equal(flipped, forward("reverse(x, 1)", {"x": x}))
