"""Multi-output ops (split, unstack, moments): their values against numpy, finite differences
(first and second order), check, explain, and the spec syntax that unpacks or indexes them.

Values and gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_unpacking.py).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import central_difference, forward, invoke, run_json, value_grad_hvp

from gradcli.api import problem_from_expression
from gradcli.core.ops import REGISTRY
from gradcli.runtime.errors import GradcliError

RNG = np.random.default_rng(20261125)


# one output of the op, x's shape, numpy's value of that output
CASES = [
    ("split(x, 2)[0]", (4, 3), lambda x: x[:2]),
    ("split(x, 3, axis=1)[2]", (2, 3), lambda x: x[:, 2:3]),
    ("split(x, [1, -1, 2], axis=-1)[1]", (2, 6), lambda x: x[:, 1:4]),
    ("split(x, [2, 0, 1])[1]", (3,), lambda x: x[2:2]),
    ("unstack(x)[1]", (3, 2), lambda x: x[1]),
    ("unstack(x, axis=-1)[0]", (3, 2), lambda x: x[:, 0]),
    ("unstack(x, num=2, axis=1)[1]", (3, 2, 2), lambda x: x[:, 1]),
    ("moments(x, 0)[0]", (4, 3), lambda x: x.mean(axis=0)),
    ("moments(x, [0, 1])[1]", (4, 3), lambda x: x.var()),
    ("moments(x, -1, keepdims=true)[1]", (4, 3), lambda x: x.var(axis=-1, keepdims=True)),
]
# the variance's second derivative sees the mean as a constant, as TensorFlow's does
# (test_the_variance_hessian_holds_the_mean_constant); its first derivative is the true one
TRUE_HESSIAN = {call for call, _, _ in CASES if not call.endswith("[1]") or "moments" not in call}


@pytest.mark.parametrize(("call", "shape", "numpy"), CASES)
def test_first_and_second_order_against_finite_differences(call, shape, numpy):
    x = RNG.uniform(-1, 1, size=shape)
    np.testing.assert_allclose(forward(call, {"x": x}), numpy(x), rtol=1e-14, atol=1e-15)
    w = RNG.uniform(0.5, 1.5, size=np.shape(numpy(x)))
    inputs = {"x": x, "w": w}
    expr = f"sum({call} ** 3 * w)"
    value, g, _ = value_grad_hvp(expr, inputs, "x")
    assert value == pytest.approx(float(np.sum(numpy(x) ** 3 * w)), rel=1e-12, abs=1e-15)

    def f(x):
        return value_grad_hvp(expr, {**inputs, "x": x}, "x")[0]

    np.testing.assert_allclose(g, central_difference(f, x), rtol=1e-6, atol=1e-8)
    if call not in TRUE_HESSIAN:
        return
    v = RNG.uniform(-1, 1, size=shape)
    _, _, hv = value_grad_hvp(expr, inputs, "x", v)

    def gv(x):
        return float(np.sum(value_grad_hvp(expr, {**inputs, "x": x}, "x")[1] * v))

    numeric = central_difference(gv, x, eps=1e-5)
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7, err_msg=call)


def test_the_variance_hessian_holds_the_mean_constant():
    # tf.nn.moments computes the variance from stop_gradient(mean): differentiating its
    # gradient 2 (x - mean) / n again gives 2 / n times the identity, not the true Hessian
    # 2 / n (I - 1 1^T / n); TensorFlow's nested tapes give the same (h_moments_variance)
    x = RNG.uniform(-1, 1, size=5)
    v = RNG.uniform(-1, 1, size=5)
    _, g, hv = value_grad_hvp("moments(x, 0)[1]", {"x": x}, "x", v)
    np.testing.assert_allclose(g, 2 * (x - x.mean()) / 5, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(hv, 2 / 5 * v, rtol=1e-15)


def _spec(tmp_path, graph: str, x="[[1, 2, 3, 4], [5, 6, 7, 8]]") -> str:
    path = tmp_path / "s.yaml"
    path.write_text(f"inputs:\n  x: {x}\ngraph:\n{graph}")
    return str(path)


def test_an_entry_unpacks_the_outputs_into_names(tmp_path):
    # d/dx of sum(a * b) with a, b the halves of each row: b's elements for a, a's for b
    path = _spec(tmp_path, "  a, b: split(x, 2, axis=1)\n  loss: sum(a * b)\n")
    doc = run_json("eval", path, "--check", "off")
    assert doc["outputs"]["loss"]["value"] == 1 * 3 + 2 * 4 + 5 * 7 + 6 * 8
    assert doc["gradients"]["x"]["value"] == [[3, 4, 1, 2], [7, 8, 5, 6]]


def test_a_one_output_op_unpacks_into_one_name(tmp_path):
    # split(x, 1), split(x, [n]) and unstack of an axis of size 1 give one tensor: an
    # entry's one name binds it, as `a, b: split(x, 2)` binds two (Python's `a, = ...`)
    graph = "  a: split(x, 1)\n  b: split(x, [4], axis=1)\n  r: unstack(x, axis=0)\n"
    path = _spec(tmp_path, graph + "  loss: sum(a * b) + sum(r)\n", x="[[1, 2, 3, 4]]")
    doc = run_json("eval", path, "--check", "off")
    assert doc["outputs"]["loss"]["value"] == 1 + 4 + 9 + 16 + 10
    assert doc["gradients"]["x"]["value"] == [[3, 5, 7, 9]]
    doc = run_json("eval", "-e", "split(x, 1)", "--at", "x=[1, 2]", "--check", "off")
    assert doc["outputs"]["f"]["value"] == [1, 2]


def test_a_one_output_op_inside_an_expression_is_indexed(tmp_path):
    res = invoke("eval", _spec(tmp_path, "  y: sin(split(x, 1))\n"), "--check", "off")
    assert res.code == 2
    assert "split(...) gives a list of 1 tensor: index it (split(...)[0])" in res.stderr
    res = invoke("eval", _spec(tmp_path, "  a, b: split(x, 1)\n"), "--check", "off")
    assert res.code == 2 and "split(...) gives 1 tensor, but 'a, b' names 2" in res.stderr


def test_moments_are_the_population_mean_and_variance(tmp_path):
    path = _spec(tmp_path, "  m, v: moments(x, [1])\n  loss: sum(v) + sum(m * [1, -1])\n")
    doc = run_json("eval", path, "--check", "off")
    # each row 1..4 shifted: variance 1.25; gradient 2 (x - mean) / 4 + the mean's 1/4 and -1/4
    assert doc["outputs"]["loss"]["value"] == 2.5 + 2.5 - 6.5
    assert doc["gradients"]["x"]["value"] == [
        [-0.75 + 0.25, -0.25 + 0.25, 0.25 + 0.25, 0.75 + 0.25],
        [-0.75 - 0.25, -0.25 - 0.25, 0.25 - 0.25, 0.75 - 0.25],
    ]


def test_explain_names_the_unused_piece_unselected(tmp_path):
    path = _spec(tmp_path, "  a, b: split(x, [1, -1], axis=1)\n  loss: sum(b * b)\n")
    doc = run_json("explain", path, code=1)
    (pair,) = doc["pairs"]
    assert pair["status"] == "partially_zero"
    assert pair["zero_elements"] == 2
    (cause,) = pair["causes"]
    assert cause["kind"] == "unselected"
    assert cause["line"] == 4


def test_check_agrees_with_sympy():
    res = invoke("check", "-e", "sum(split(x, 2)[1] * sin(unstack(x)[0]) + moments(x, 0)[1])",
                 "--at", "x=[0.5, -1, 2, 0.25]", "--format", "json")  # fmt: skip
    assert res.code == 0, (res.stdout, res.stderr)
    assert "sympy" in res.stdout.lower()


def test_a_list_of_outputs_goes_whole_into_concat():
    x = RNG.uniform(-1, 1, size=(2, 4))
    got = forward("concat(split(x, 2, axis=1), 0)", {"x": x})
    np.testing.assert_array_equal(got, np.concatenate(np.split(x, 2, axis=1), 0))


SPEC_ERRORS = [
    ("  a, b: split(x, 4, axis=1)\n", r"4:3: split\(...\) gives 4 tensors, but 'a, b' names 2"),
    ("  a, b: sin(x)\n", r"4:3: graph entry 'a, b' names 2 results, but its expression"),
    ("  y: split(x, 2)\n", r"s.yaml:4:6: split\(...\) gives 2 tensors: unpack them"),
    ("  y: sin(split(x, 2))\n", r"s.yaml:4:10: split\(...\) gives 2 tensors"),
    ("  y: split(x, 2)[2]\n", r"s.yaml:4:17: index 2 is out of range for the 2 outputs of split"),
    ("  y: split(x, 2)[0:1]\n", r"index the 2 outputs of split with one integer"),
    ("  a, 2b: split(x, 2)\n", r"s.yaml:4:6: '2b' in 'a, 2b' is not a valid graph entry name"),
    ("  a, pi: split(x, 2)\n", r"s.yaml:4:6: 'pi' in 'a, pi' is not a valid"),
    ("  a, a: split(x, 2)\n", r"s.yaml:4:6: graph entry 'a' is defined twice \(first at line 4\)"),
    ("  a: sin(x)\n  b, a: split(x, 2)\n", r"s.yaml:5:6: graph entry 'a' is defined twice"),
    ("  x, b: split(x, 2)\n", r"s.yaml:4:3: 'x' is both an input \(line 2\) and a graph entry"),
    ("  a, b: split(x, 3)\n", r"s.yaml:4:9: split: 3 pieces cannot split a dimension of size 2"),
    ("  a, b: split(x, [1, 2])\n", r"split: sizes \[1, 2\] do not add up to the dimension's"),
    ("  a, b: split(x, [-1, -1])\n", r"split: sizes must be non-negative, with at most one -1"),
    ("  a, b: split(x, [3, -1])\n", r"split: sizes \[3, -1\] do not add up"),
    ("  a, b: split(x, 2, axis=2)\n", r"split: axis 2 is out of range for a tensor of rank 2"),
    ("  a, b: unstack(x, num=3)\n", r"unstack: num is 3, but axis 0 of \(2, 4\) has 2"),
    ("  a, b: moments(x)\n", r"moments needs an axes"),
    ("  c: b\n  a, b: split(x, 2)\n", r"s.yaml:4:6: 'b' is defined later \(line 5\)"),
]  # fmt: skip


@pytest.mark.parametrize(("graph", "message"), SPEC_ERRORS)
def test_spec_errors_are_positioned(tmp_path, graph, message):
    res = invoke("eval", _spec(tmp_path, graph), "--check", "off")
    assert res.code == 2, res.stdout
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert re.search(message, res.stderr), res.stderr


def test_a_scalar_cannot_be_split_or_unstacked():
    for call in ("split(x, 1)", "unstack(x)"):
        with pytest.raises(GradcliError, match=r"cannot (split|unstack) a scalar"):
            problem_from_expression(f"{call}[0]", {"x": np.float64(1.0)}, wrt=[])


def test_multi_output_ops_are_never_nodes():
    for name in ("split", "unstack", "moments"):
        op = REGISTRY[name]
        assert op.unpack is not None and op.forward is None and op.bind is None
        with pytest.raises(AssertionError):
            op.infer({}, None)
