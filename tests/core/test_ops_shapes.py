"""Contractions (einsum): finite differences (first and second order), closed forms,
check against SymPy, explain, and the call syntax (the subscripts string first).

Expected values come from finite differences, numpy's einsum or closed forms; values and
gradients against TensorFlow itself are in tests/data/tf_reference.json
(tools/tf_cases_shapes.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import central_difference, invoke, run_json, value_grad_hvp

from gradcli.api import problem_from_expression
from gradcli.core.executor import run

RNG = np.random.default_rng(20260514)


# equation and operand shapes; the loss is sum(einsum(...) ** 2 * w) (second order nonzero)
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("i->ii", [(3,)]),
    ("ijk->j", [(2, 3, 4)]),
    ("i,j->ij", [(3,), (2,)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
    ("ij...,j->i...", [(2, 3, 1, 4), (3,)]),
    ("i...,ij->j...", [(2, 3), (2, 4)]),
    ("iij,jk->ik", [(2, 2, 3), (3, 2)]),
    ("ij,k->i", [(2, 3), (4,)]),
    ("bij,bjk,bkl->bil", [(2, 2, 3), (2, 3, 2), (2, 2, 2)]),
]


def reference(equation, *xs):
    """numpy's einsum; numpy refuses a repeated output label, a diagonal: np.diag."""
    return np.diag(xs[0]) if equation == "i->ii" else np.einsum(equation, *xs)


@pytest.mark.parametrize(("equation", "shapes"), EINSUM)
def test_einsum_first_and_second_order_against_finite_differences(equation, shapes):
    names = "abc"[: len(shapes)]
    inputs = {n: RNG.uniform(-1, 1, size=s) for n, s in zip(names, shapes)}
    out_shape = reference(equation, *inputs.values()).shape
    inputs["w"] = RNG.uniform(0.5, 1.5, size=out_shape)
    expr = f"sum(einsum('{equation}', {', '.join(names)}) ** 2 * w)"
    for name in names:
        value, g, _ = value_grad_hvp(expr, inputs, name)
        expected = float(
            np.sum(reference(equation, *list(inputs.values())[:-1]) ** 2 * inputs["w"])
        )
        assert value == pytest.approx(expected, rel=1e-12)

        def f(x, name=name):
            return value_grad_hvp(expr, {**inputs, name: x}, name)[0]

        np.testing.assert_allclose(g, central_difference(f, inputs[name]), rtol=1e-6, atol=1e-8)
        v = RNG.uniform(-1, 1, size=inputs[name].shape)
        _, _, hv = value_grad_hvp(expr, inputs, name, v)

        def gv(x, name=name, v=v):
            return float(np.sum(value_grad_hvp(expr, {**inputs, name: x}, name)[1] * v))

        numeric = central_difference(gv, inputs[name], eps=1e-5)
        np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7, err_msg=f"{equation} {name}")


def test_einsum_trace_gradient_is_the_identity():
    x = RNG.uniform(-1, 1, size=(3, 3))
    value, g, _ = value_grad_hvp("einsum('ii', x)", {"x": x}, "x")
    assert value == pytest.approx(np.trace(x))
    np.testing.assert_array_equal(g, np.eye(3))


def test_einsum_diagonal_output_embeds_the_vector():
    problem = problem_from_expression("einsum('i->ii', x)", {"x": np.array([1.0, 2.0])}, wrt=[])
    out = run(problem.graph, list(problem.outputs))[problem.outputs[0]]
    np.testing.assert_array_equal(out, [[1.0, 0.0], [0.0, 2.0]])


def test_einsum_product_keeps_negative_zero():
    # TensorFlow's kernel multiplies when nothing is summed; numpy's einsum adds to +0.0
    problem = problem_from_expression(
        "einsum('i,j->ij', x, y)", {"x": np.array([-1.0]), "y": np.array([0.0, 2.0])}, wrt=[]
    )
    out = run(problem.graph, list(problem.outputs))[problem.outputs[0]]
    assert np.signbit(out[0, 0]) and out[0, 1] == -2.0


@pytest.mark.parametrize("shapes", [((3,), (2,)), ((2, 2), (3,))])
def test_outer_first_and_second_order_against_finite_differences(shapes):
    inputs = {n: RNG.uniform(-1, 1, size=s) for n, s in zip("ab", shapes)}
    inputs["w"] = RNG.uniform(0.5, 1.5, size=(inputs["a"].size, inputs["b"].size))
    expr = "sum(outer(a, b) ** 2 * w)"
    for name in "ab":
        value, g, _ = value_grad_hvp(expr, inputs, name)
        flat = np.outer(inputs["a"], inputs["b"])  # numpy's outer flattens too
        assert value == pytest.approx(float(np.sum(flat**2 * inputs["w"])), rel=1e-12)

        def f(x, name=name):
            return value_grad_hvp(expr, {**inputs, name: x}, name)[0]

        np.testing.assert_allclose(g, central_difference(f, inputs[name]), rtol=1e-6, atol=1e-8)
        v = RNG.uniform(-1, 1, size=inputs[name].shape)
        _, _, hv = value_grad_hvp(expr, inputs, name, v)

        def gv(x, name=name, v=v):
            return float(np.sum(value_grad_hvp(expr, {**inputs, name: x}, name)[1] * v))

        numeric = central_difference(gv, inputs[name], eps=1e-5)
        np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7)


CHECKS = [
    ("outer(a, a) * outer(a, [1, 2])", ["a=[1, -2]"]),
    ("einsum('ij,jk->ik', a, b)", ["a=[[1, 2], [3, -1]]", "b=[[0.5, 1], [2, -3]]"]),
    ("einsum('ii', a) * einsum('ij->j', a)", ["a=[[1, 2], [3, -1]]"]),
    ("einsum('i->ii', a) * einsum('i,j->ij', a, a)", ["a=[1, -2]"]),
]


@pytest.mark.parametrize(("expr", "at"), CHECKS)
def test_einsum_check_against_sympy(expr, at):
    args = [a for spec in at for a in ("--at", spec)]
    res = invoke("check", "-e", f"sum({expr})", *args, "--format", "json")
    assert res.code == 0, (res.stdout, res.stderr)
    assert "sympy" in res.stdout.lower()


def test_explain_names_einsum_when_the_other_operand_is_zero():
    doc = run_json(
        "explain", "-e", "sum(einsum('ij,jk->ik', a, b))", "--at", "a=[[1, 2], [3, 4]]",
        "--at", "b=[[0, 0], [0, 0]]", "--wrt", "a", code=1,
    )  # fmt: skip
    (pair,) = doc["pairs"]
    assert pair["status"] == "zero"
    (cause,) = pair["causes"]
    assert cause["op"] == "einsum"
    assert cause["detail"] == (
        "the derivative of einsum('ij,jk->ik', a, b) with respect to a is zero at 4 of 4 elements"
    )


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("einsum(a, b)", "einsum takes its equation first, e.g. einsum('...', x)"),
        ("einsum('ij,jk->ik', a)", "einsum: 'ij,jk->ik' has 2 operand subscripts but 1 tensor"),
        ("einsum('ijk,jk->ik', a, b)", "einsum: subscripts 'ijk' do not fit a tensor of rank 2"),
        ("einsum('ij,ij->ij', a, b)", "einsum: label 'j' has sizes 2 and 3"),
        ("einsum('ij,jk->iz', a, b)", "einsum: output 'iz' uses a label no operand has"),
        ("einsum('i1,jk->ik', a, b)", "einsum: bad subscripts 'i1'"),
        ("einsum('...j,jk->k', a, b)", "needs '...' in its output"),
        ("einsum('ij,jk->ik->i', a, b)", "has more than one '->'"),
        ("einsum('ij', 2)", "einsum: subscripts 'ij' do not fit a tensor of rank 0"),
    ],
)
def test_einsum_errors_are_positioned(expr, message):
    res = invoke(
        "eval",
        "-e",
        f"{expr} + sum(a) + sum(b)",
        "--at",
        "a=[[1, 2], [3, 4]]",
        "--at",
        "b=[[1, 2, 3], [4, 5, 6]]",
    )
    assert res.code == 2, res.stdout
    assert "<expr>:1:" in res.stderr and message in res.stderr, res.stderr


def test_einsum_prints_its_subscripts_first():
    res = invoke("graph", "-e", "einsum('ij,jk->ik', a, b)", "--at", "a=[[1]]", "--at", "b=[[2]]")
    assert res.code == 0, res.stderr
    assert "einsum(equation='ij,jk->ik')" in res.stdout or "einsum('ij,jk->ik', a, b)" in res.stdout
