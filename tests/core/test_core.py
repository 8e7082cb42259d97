"""Core semantics through the library: conventions at kinks and ties, grad_ys, targets,
cond, long chains and the executor's memory.
"""

import json

import numpy as np
import pytest
from helpers import invoke

from gradcli.api import grad
from gradcli.runtime.errors import GradcliError


def spec_grad(text, **kw):
    return grad(text, {}, spec=True, **kw)


# --- TensorFlow's conventions at kinks and ties (values confirmed with TensorFlow 2.21) -------
@pytest.mark.parametrize(
    ("expr", "at", "expected"),
    [
        ("relu(x)", {"x": 0.0}, 0.0),
        ("abs(x)", {"x": 0.0}, 0.0),
        ("sign(x)", {"x": 1.5}, 0.0),
        ("sqrt(x)", {"x": 0.0}, np.inf),
        ("1 / x", {"x": 0.0}, -np.inf),
        ("log(x)", {"x": 0.0}, np.inf),
        ("x ** 0.5", {"x": 0.0}, np.inf),
        ("clip(x, 0, 1)", {"x": 1.0}, 1.0),
        ("clip(x, 0, 1)", {"x": 0.0}, 1.0),
        ("clip(x, 0, 1)", {"x": 2.0}, 0.0),
    ],
)
def test_kink_conventions(expr, at, expected):
    assert grad(expr, at).gradients["x"] == expected


def test_maximum_and_minimum_ties_go_to_the_first_argument():
    ev = grad("maximum(a, b)", {"a": 1.0, "b": 1.0})
    assert (ev.gradients["a"], ev.gradients["b"]) == (1.0, 0.0)
    ev = grad("minimum(a, b)", {"a": 1.0, "b": 1.0})
    assert (ev.gradients["a"], ev.gradients["b"]) == (1.0, 0.0)


@pytest.mark.parametrize(
    ("fn", "selector"), [("maximum", "greater_equal"), ("minimum", "less_equal")]
)
def test_maximum_gradient_builds_one_mask_for_both_arguments(fn, selector):
    """TensorFlow's _MaximumMinimumGrad: one selector(x, y) mask, a where_v2 per argument."""
    ev = grad(f"{fn}(a * 2, b)", {"a": [0.5, 3.0], "b": [2.0, 2.0]})
    gradient_ops = [n.op for n in ev.problem.graph.nodes if n.kind == "gradient"]
    assert gradient_ops.count(selector) == 1
    assert gradient_ops.count("where") == 2
    assert ev.gradients["a"].tolist() == ([0.0, 2.0] if fn == "maximum" else [2.0, 0.0])
    assert ev.gradients["b"].tolist() == ([1.0, 0.0] if fn == "maximum" else [0.0, 1.0])


def test_max_reduction_splits_ties_evenly():
    assert grad("max(x)", {"x": [1.0, 3.0, 3.0]}).gradients["x"].tolist() == [0.0, 0.5, 0.5]
    assert grad("min(x)", {"x": [2.0, 2.0, 2.0, 5.0]}).gradients["x"].tolist() == [
        1 / 3,
        1 / 3,
        1 / 3,
        0.0,
    ]


def test_pow_exponent_gradient_is_zero_where_base_is_not_positive():
    ev = grad("x ** y", {"x": [-2.0, 0.0, 2.0], "y": [2.0, 2.0, 2.0]})
    assert ev.gradients["x"].tolist() == [-4.0, 0.0, 4.0]
    assert ev.gradients["y"].tolist() == [0.0, 0.0, pytest.approx(4 * np.log(2), rel=1e-15)]


@pytest.mark.parametrize("op", ["floor", "ceil", "round"])
def test_rounding_cuts_the_path(op):
    ev = grad(f"{op}(x) * y", {"x": 1.5, "y": 2.0})
    assert ev.gradients["x"] is None and ev.status["x"] == "unconnected"
    assert ev.gradients["y"] == {"floor": 1.0, "ceil": 2.0, "round": 2.0}[op]


def test_round_is_half_to_even_like_tensorflow():
    assert grad("round(x)", {"x": [0.5, 1.5, 2.5, -0.5]}).outputs["f"].tolist() == [0, 2, 2, -0.0]


def test_argmax_and_comparisons_cut_the_path():
    ev = grad("cast(argmax(x), 'float64') + sum(cast(x > 0, 'float64'))", {"x": [1.0, 2.0]})
    assert ev.gradients["x"] is None


def test_cast_to_int_cuts_and_float_casts_pass():
    assert grad("cast(cast(x, 'int32'), 'float64')", {"x": 1.5}).gradients["x"] is None
    ev = grad("cast(cast(x, 'float32'), 'float64') * 3", {"x": 1.5})
    assert ev.gradients["x"] == 3.0 and ev.gradients["x"].dtype == np.float64


def test_sign_is_connected_with_zero_gradient():
    ev = grad("sign(x)", {"x": [1.5, -2.0]})
    assert ev.status["x"] == "connected"
    assert ev.gradients["x"].tolist() == [0.0, 0.0]


def test_non_finite_values_are_computed_not_raised():
    ev = grad("log(x) + sqrt(y) + 1 / z", {"x": 0.0, "y": -1.0, "z": 0.0})
    assert np.isnan(ev.outputs["f"])  # -inf + nan + inf
    assert ev.gradients["x"] == np.inf and np.isnan(ev.gradients["y"])
    assert ev.gradients["z"] == -np.inf


def test_exp_overflow_is_inf():
    ev = grad("exp(x)", {"x": 1000.0})
    assert ev.outputs["f"] == np.inf and ev.gradients["x"] == np.inf


def test_where_trap_values_follow_tensorflow():
    ev = grad("sum(where(x > 0, log(x), 0))", {"x": [-1.0, 0.0, 2.0]})
    g = ev.gradients["x"]
    assert g[0] == 0.0 and np.signbit(g[0])  # -0.0: 0 * (1 / -1)
    assert np.isnan(g[1]) and g[2] == 0.5
    ev = grad("sum(where(x > 0, sqrt(x), 0))", {"x": [0.0, 4.0, -1.0]})
    assert ev.gradients["x"].tolist() == [0.0, 0.25, 0.0]


# --- grad_ys, targets, outputs ---------------------------------------------------------------
def test_grad_ys_weights_and_broadcasts():
    text = """
inputs:
  x: [1.0, 2.0, 3.0]
graph:
  y: x * x
grad_ys: {y: [1.0, 0.0, -2.0]}
"""
    assert spec_grad(text).gradients["x"].tolist() == [2.0, 0.0, -12.0]
    scalar = text.replace("[1.0, 0.0, -2.0]", "0.5")
    assert spec_grad(scalar).gradients["x"].tolist() == [1.0, 2.0, 3.0]


def test_several_outputs_sum_their_gradients():
    text = "inputs:\n  x: 3.0\ngraph:\n  a: x * x\n  b: 2 * x\noutputs: [a, b]\n"
    ev = spec_grad(text)
    assert ev.outputs == {"a": 9.0, "b": 6.0}
    assert ev.gradients["x"] == 8.0


def test_gradient_with_respect_to_an_intermediate_node():
    text = "inputs:\n  x: 3.0\ngraph:\n  h: x * x\n  y: h * h + x\nwrt: [h, x]\n"
    ev = spec_grad(text)
    assert ev.gradients["h"] == 18.0  # dy/dh = 2h
    assert ev.gradients["x"] == 2 * 9 * 2 * 3 + 1  # dy/dx = 2h * 2x + 1


def test_output_as_its_own_target_gives_grad_ys():
    text = "inputs:\n  x: [1.0, 2.0]\ngraph:\n  y: x * 2\nwrt: [y]\n"
    assert spec_grad(text).gradients["y"].tolist() == [1.0, 1.0]


# --- cond -------------------------------------------------------------------------------------
def test_untaken_branch_is_not_evaluated():
    # the false branch would be an index error at run time if it were evaluated lazily wrong;
    # here it is log(-1) = nan, which must not reach the output or the gradient
    ev = grad("cond(x > 0, x * 2, log(x))", {"x": 3.0})
    assert ev.outputs["f"] == 6.0 and ev.gradients["x"] == 2.0


def test_nested_cond_in_the_predicate():
    ev = grad("cond(cond(x > 0, x, -x) > 1, x * x, x)", {"x": -3.0})
    assert ev.outputs["f"] == 9.0 and ev.gradients["x"] == -6.0


def test_cond_branches_must_have_one_shape():
    # tf.cond returns the taken branch unchanged; broadcasting it would change sums and
    # gradients (cond(p, x * 2, 1.0) summed over 2 elements: TF 1.0, a broadcast 2.0)
    with pytest.raises(GradcliError, match=r"cond: the branches have shapes \(2,\) and \(\)"):
        grad("sum(cond(sum(x) > 0, x * 2, 0.0))", {"x": [1.0, 2.0]})
    ev = grad("sum(cond(sum(x) < 0, x * 2, broadcast_to(0.0, [2])))", {"x": [1.0, 2.0]})
    assert ev.outputs["f"] == 0.0 and ev.gradients["x"] is None


# --- chains ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_long_chain_is_iterative():
    n = 100_000
    lines = ["inputs:", "  x0: 0.5", "graph:"]
    lines += [f"  x{i}: sin(x{i - 1}) * 0.5 + 0.25" for i in range(1, n + 1)]
    ev = spec_grad("\n".join(lines) + "\n")
    x, g = 0.5, 1.0
    for _ in range(n):
        g *= np.cos(x) * 0.5
        x = np.sin(x) * 0.5 + 0.25
    assert ev.outputs[f"x{n}"] == pytest.approx(x, rel=1e-12)
    assert ev.gradients["x0"] == pytest.approx(g, rel=1e-9, abs=1e-300)


def test_twenty_thousand_terms_on_one_line():
    terms = " + ".join(f"{i} * x" for i in range(20_000))
    ev = grad(terms, {"x": 1.0})
    assert ev.gradients["x"] == sum(range(20_000))


def test_executor_frees_values_after_their_last_use():
    import tracemalloc

    from gradcli.core.executor import run

    n, size = 40, 250_000  # 40 intermediates of 2 MB each
    lines = ["inputs:", f"  x0: {{zeros: [{size}]}}", "graph:"]
    lines += [f"  x{i}: x{i - 1} * 1.5 + 1" for i in range(1, n + 1)]
    problem = spec_problem("\n".join(lines) + "\n")
    tracemalloc.start()
    try:
        run(problem.graph, problem.outputs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * size * 6  # a handful of live arrays, not one per node


def spec_problem(text):
    from gradcli.api import problem_from_text

    return problem_from_text(text)


COND_IN_GRAD = """\
inputs:
  x: [2.0, -1.0]
functions:
  f:
    params: [v]
    body: v * v
    grad: cond(sum(v) > 0, dy * 3, dy * 5)
graph:
  y: sum(f(x))
"""


@pytest.mark.parametrize(
    "command",
    [["eval", "--check", "off"], ["explain"], ["graph", "--grad"], ["jacobian"], ["hessian"]],
)
def test_a_cond_inside_a_custom_gradient_is_resolved_when_it_runs(command):
    # the cond is built with the gradient, after the forward conds were resolved;
    # sum(v) = 1 > 0 takes dy * 3 (TensorFlow's eager tf.cond would too)
    res = invoke(*command, "-", "--format", "json", input=COND_IN_GRAD)
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    if command[0] == "eval":
        assert doc["outputs"]["y"]["value"] == 5.0
        assert doc["gradients"]["x"]["value"] == [3.0, 3.0]
    if command[0] == "jacobian":
        assert doc["jacobian"]["y"]["x"]["value"] == [3.0, 3.0]
