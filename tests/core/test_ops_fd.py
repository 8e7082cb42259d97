"""Every op's gradient against central finite differences in float64, over shapes that broadcast.

Each case is an expression over inputs drawn from the op's domain (away from kinks and
ties). The loss is sum(W * expr) with a fixed random W, so every element of the op's
output matters with a different weight. Second derivatives are checked the same way:
the Hessian-vector product from differentiating the gradient graph against central
differences of the gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import UNARY_DOMAINS, central_difference
from helpers import draw as shared_draw

from gradcli.api import problem_from_expression
from gradcli.core import ops
from gradcli.core.autodiff import gradients
from gradcli.core.executor import resolve_conds, run

RNG = np.random.default_rng(20261121)


def draw(shape, **domain):
    return shared_draw(RNG, shape, **domain)


def weighted(expr, inputs):
    """The case's loss and its inputs: sum(W * expr) with W shaped like expr's value."""
    value = evaluate(expr, inputs)[0]
    weights = RNG.uniform(0.5, 1.5, size=np.shape(value))
    return f"sum(W * ({expr}))", {**inputs, "W": weights}


def evaluate(expr, inputs, wrt=None):
    """(output value, {input: gradient}) from gradcli."""
    problem = problem_from_expression(expr, inputs, wrt=wrt)
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    grads = gradients(graph, problem.outputs, problem.wrt)
    targets = list(problem.outputs) + [g for g in grads.results if isinstance(g, int)]
    values = run(graph, targets, known=known)
    out = np.asarray(values[problem.outputs[0]])
    result = {}
    for x, g in zip(problem.wrt, grads.results):
        name = graph[x].name
        if g is None:
            result[name] = None
        elif g is ops.ZERO_GRAD:
            result[name] = np.zeros(graph[x].shape)
        else:
            result[name] = np.asarray(values[g], dtype=float)
    return out, result


def check_gradient(expr, inputs, targets, rtol=1e-6, atol=1e-8):
    loss, all_inputs = weighted(expr, inputs)
    _, grads = evaluate(loss, all_inputs, wrt=targets)
    for name in targets:
        assert grads[name] is not None, f"{name} unconnected in {expr}"

        def f(v, name=name):
            return float(evaluate(loss, {**all_inputs, name: v}, wrt=[])[0])

        numeric = central_difference(f, np.asarray(all_inputs[name], dtype=float))
        np.testing.assert_allclose(grads[name], numeric, rtol=rtol, atol=atol, err_msg=expr)


UNARY = UNARY_DOMAINS


@pytest.mark.parametrize("shape", [(), (4,), (3, 4)])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name, shape):
    check_gradient(f"{name}(x)", {"x": draw(shape, **UNARY[name])}, ["x"])


BINARY = {
    "x + y": ({}, {}),
    "x - y": ({}, {}),
    "x * y": ({}, {}),
    "x / y": ({}, {"away": 0.5}),
    "x ** y": ({"lo": 0.4, "hi": 2.0}, {"lo": -1.5, "hi": 1.5}),
    "pow(x, y)": ({"lo": 0.4, "hi": 2.0}, {"lo": -1.5, "hi": 1.5}),
    "maximum(x, y)": ({}, {}),
    "minimum(x, y)": ({}, {}),
    "atan2(x, y)": ({"away": 0.3}, {"away": 0.3}),
    "xlogy(x, y)": ({"away": 0.2}, {"lo": 0.3, "hi": 2.0}),
    "xdivy(x, y)": ({"away": 0.2}, {"away": 0.5}),
    "xlog1py(x, y)": ({"away": 0.2}, {"lo": -0.5, "hi": 2.0}),
    "floormod(x, y)": ({}, {"away": 0.5}),
    "truncatemod(x, y)": ({}, {"away": 0.5}),
    "mod(x, y)": ({}, {"away": 0.5}),
    "div_no_nan(x, y)": ({}, {"away": 0.5}),
    "mul_no_nan(x, y)": ({}, {"away": 0.2}),
}
SHAPE_PAIRS = [((), ()), ((4,), (4,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3, 4)),
               ((2, 3, 4), (3, 1))]  # fmt: skip


@pytest.mark.parametrize(("xs", "ys"), SHAPE_PAIRS)
@pytest.mark.parametrize("expr", sorted(BINARY))
def test_binary_broadcasting(expr, xs, ys):
    dx, dy = BINARY[expr]
    check_gradient(expr, {"x": draw(xs, **dx), "y": draw(ys, **dy)}, ["x", "y"])


REDUCTIONS = ["sum", "mean", "max", "min", "prod", "logsumexp"]
AXES = ["", ", axis=0", ", axis=1", ", axis=-1", ", axis=[0, 1]", ", axis=1, keepdims=true",
        ", keepdims=true"]  # fmt: skip


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name, axis):
    lo = 0.5 if name == "prod" else -2.0
    check_gradient(f"{name}(x{axis})", {"x": draw((3, 4), lo=lo)}, ["x"])


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_rank3(name):
    lo = 0.5 if name == "prod" else -2.0
    check_gradient(f"{name}(x, axis=[0, 2])", {"x": draw((2, 3, 4), lo=lo)}, ["x"])


def test_prod_with_a_zero_is_exact():
    # d prod / dx_i is the product of the others, also where x has a zero
    _, g = evaluate("prod(x)", {"x": np.array([0.0, 2.0, 3.0])})
    assert g["x"].tolist() == [6.0, 0.0, 0.0]
    _, g = evaluate("prod(x)", {"x": np.array([0.0, 0.0, 3.0])})
    assert g["x"].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("axis", ["", ", axis=0", ", axis=-1"])
def test_softmax(axis):
    check_gradient(f"softmax(x{axis})", {"x": draw((3, 4))}, ["x"])


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("kwargs", ["", ", axis=1", ", exclusive=true", ", reverse=true",
                                    ", axis=1, exclusive=true, reverse=true"])  # fmt: skip
def test_cumulative(name, kwargs):
    check_gradient(f"{name}(x{kwargs})", {"x": draw((3, 4), lo=0.5)}, ["x"])


SHAPE_OPS = {
    "reshape(x, [4, 3])": (3, 4),
    "reshape(x, [-1])": (3, 4),
    "reshape(x, [2, 1, 6])": (3, 4),
    "transpose(x)": (3, 4),
    "transpose(x, [1, 0, 2])": (2, 3, 4),
    "transpose(x, [2, 0, 1])": (2, 3, 4),
    "squeeze(x)": (3, 1, 4, 1),
    "squeeze(x, axis=[1, -1])": (3, 1, 4, 1),
    "expand_dims(x, 1)": (3, 4),
    "expand_dims(x, -1)": (3, 4),
    "reverse(x, 0)": (3, 4),
    "reverse(x, [0, -1])": (2, 3, 4),
    "flip(x, [1])": (3, 4),
    "broadcast_to(x, [3, 4])": (4,),
    "broadcast_to(x, [2, 3, 4])": (3, 1),
    "x[0]": (3, 4),
    "x[-1]": (3, 4),
    "x[1:3]": (3, 4),
    "x[:, 2]": (3, 4),
    "x[::2, 1:]": (3, 4),
    "x[1, -2:]": (3, 4),
    "x[0][1]": (3, 4),
    "x[1:, ::-1]": (3, 4),
    "concat([x, x * 2], 0)": (3, 4),
    "concat([x, sin(x), x], axis=1)": (3, 4),
    "stack([x, x * x])": (3, 4),
    "stack([x, x * x], axis=-1)": (3, 4),
    "[x, 2 * x, x * x]": (4,),
    "cast(x, 'float64')": (3, 4),
    "where(x > 0, x * x, 3 * x)": (3, 4),
    "clip(x, -0.5, 0.5)": (3, 4),
    "cond(sum(x) > -100, sin(x), cos(x))": (3, 4),
    "cond(sum(x) < -100, sin(x), cos(x))": (3, 4),
}


@pytest.mark.parametrize("expr", sorted(SHAPE_OPS))
def test_shape_and_selection_ops(expr):
    check_gradient(expr, {"x": draw(SHAPE_OPS[expr], away=0.1)}, ["x"])


MATMUL = [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
          ((2, 3, 4), (1, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3))]  # fmt: skip


@pytest.mark.parametrize(("a", "b"), MATMUL)
def test_matmul(a, b):
    check_gradient("x @ y", {"x": draw(a), "y": draw(b)}, ["x", "y"])


def test_stop_gradient_blocks_only_its_path():
    # d/dx [stop_gradient(x) * y + x] = 1: finite differences would see y + 1
    _, g = evaluate("stop_gradient(x) * y + x", {"x": draw((3,)), "y": draw((3,))})
    assert g["x"].tolist() == [1.0, 1.0, 1.0]


def test_clip_bounds_as_inputs():
    x = np.array([-2.0, -0.3, 0.4, 1.7])
    check_gradient("clip(x, lo, hi)", {"x": x, "lo": np.array(-1.0), "hi": np.array(1.0)},
                   ["x", "lo", "hi"])  # fmt: skip


def test_where_both_sides():
    x = draw((3, 4), away=0.1)
    check_gradient("where(x > 0, a * x, b * x)",
                   {"x": x, "a": draw((3, 4)), "b": draw((4,))}, ["x", "a", "b"])  # fmt: skip


# --- second order: Hessian-vector products through the gradient graph -------------------------


def hvp(expr, inputs, v):
    """(gradient, H @ v) for scalar expr w.r.t. x, both from gradcli."""
    problem = problem_from_expression(expr, inputs, wrt=["x"])
    graph = problem.graph
    known: dict = {}
    resolve_conds(graph, problem.outputs, known)
    (g,) = gradients(graph, problem.outputs, problem.wrt).results
    (h,) = gradients(graph, [g], problem.wrt, seeds=[v]).results
    values = run(graph, [g] + ([h] if isinstance(h, int) else []), known=known)
    hv = np.zeros_like(v) if h is ops.ZERO_GRAD or h is None else np.asarray(values[h])
    return np.asarray(values[g], dtype=float), hv


SECOND_ORDER = {
    "sin(x)": {},
    "cos(x)": {},
    "tan(x)": {"lo": -1.0, "hi": 1.0},
    "exp(x)": {},
    "log(x)": {"lo": 0.3, "hi": 3.0},
    "log1p(x)": {"lo": -0.5, "hi": 2.0},
    "sqrt(x)": {"lo": 0.3, "hi": 3.0},
    "square(x)": {},
    "tanh(x)": {},
    "sigmoid(x)": {},
    "softplus(x)": {},
    "1 / x": {"away": 0.5},
    "x ** 3.5": {"lo": 0.3, "hi": 2.0},
    "2.5 ** x": {},
    "x ** x": {"lo": 0.3, "hi": 2.0},
    "maximum(x, 0.3) * x": {"away": 0.4},
    "prod(x, axis=0)": {"lo": 0.3, "hi": 2.0},
    "logsumexp(x, axis=1)": {},
    "softmax(x) * x": {},
    "(x @ transpose(x)) * x[:, 0:3]": {},
    "x * x[0]": {},
    "mean(x, axis=0) * x": {},
    "max(x * x, axis=1)": {},
    "cumprod(x, axis=1)": {"lo": 0.3, "hi": 2.0},
    "where(x > 0, x * x * x, sin(x))": {"away": 0.1},
    "clip(x * x, 0.2, 1.5) * x": {"away": 0.1},
    "relu(x) * x": {"away": 0.2},
    "abs(x) * x": {"away": 0.2},
    "x[1:] * x[:-1]": {},
    "erf(x) + erfc(x) * x": {},
    "asin(x) * acos(x) + atan(x)": {"lo": -0.9, "hi": 0.9},
    "sinh(x) * cosh(x) + asinh(x)": {},
    "acosh(x)": {"lo": 1.1, "hi": 3.0},
    "atanh(x)": {"lo": -0.9, "hi": 0.9},
    "expm1(x) * log2(x) + log10(x)": {"lo": 0.3, "hi": 3.0},
    "reciprocal(x) + rsqrt(x * x)": {"away": 0.5},
    "cbrt(x) * x": {"away": 0.3},
    "atan2(x, x * x + 1)": {},
    "xlogy(x, x * x + 0.5) + xdivy(x, x * x + 0.5)": {"away": 0.2},
    "floormod(x * x, x + 2.5) * x": {"lo": 0.3, "hi": 2.0},
    "div_no_nan(x * x, x + 2.5) + mul_no_nan(x, x * x + 0.5) * x": {"lo": 0.3, "hi": 2.0},
}


@pytest.mark.parametrize("expr", sorted(SECOND_ORDER))
def test_second_order(expr):
    x = draw((3, 3), **SECOND_ORDER[expr])
    loss, inputs = weighted(expr, {"x": x})
    v = RNG.uniform(-1, 1, size=x.shape)
    _, hv = hvp(loss, inputs, v)

    def directional(x_new):
        g, _ = hvp(loss, {**inputs, "x": x_new}, v)
        return float(np.sum(g * v))

    numeric = central_difference(directional, x, eps=1e-5)
    np.testing.assert_allclose(hv, numeric, rtol=1e-5, atol=1e-7, err_msg=expr)


# covered by tests/test_ops_losses.py's finite-difference table
LOSSES_FD = ["sigmoid_cross_entropy", "huber", "l2_loss", "var", "std"]
# covered by tests/core/test_ops_xent.py's finite-difference table
XENT_FD = ["softmax_cross_entropy", "sparse_softmax_cross_entropy", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "mean_squared_error",
           "mean_absolute_error", "norm", "l2_normalize", "logmeanexp"]  # fmt: skip
# covered by tests/core/test_ops_shapes2.py's finite-difference tables
SHAPES2_FD = ["tensordot", "tile", "repeat", "pad", "roll", "diag", "diag_part", "trace",
              "band_part", "tril", "triu"]  # fmt: skip
# covered by tests/core/test_ops_conv.py's finite-difference tables (first and second order)
CONV_FD = ["conv1d", "conv2d", "depthwise_conv2d", "conv2d_transpose", "max_pool1d", "max_pool2d",
           "avg_pool1d", "avg_pool2d"]  # fmt: skip

# covered by tests/core/test_ops_random.py and test_ops_volumes.py (first and second order)
RANDOM_FD = ["dropout", "random_normal", "random_uniform"]
VOLUMES_FD = ["conv3d", "max_pool3d", "avg_pool3d"]

# covered by tests/core/test_ops_index2.py's finite-difference table
INDEX2_FD = ["gather_nd", "scatter_nd", "tensor_scatter_add", "tensor_scatter_update",
             "take_along_axis", "top_k", "sort", "segment_max", "segment_min",
             "unsorted_segment_max", "unsorted_segment_min", "segment_mean",
             "unsorted_segment_mean"]  # fmt: skip


def test_every_public_op_is_covered():
    """A new public op must get a finite-difference case here (or a reason it has none);
    the index ops have theirs in test_ops_indexing.py."""
    text = " ".join([*UNARY, *BINARY, *REDUCTIONS, *SHAPE_OPS, "softmax", "cumsum", "cumprod",
                     "matmul @", "clip", "where", "log_softmax",
                     "gather unsorted_segment_sum segment_sum einsum outer",
                     "split unstack moments",  # test_ops_unpacking.py
                     "lgamma digamma polygamma cummax cummin cumulative_logsumexp",  # gamma
                     # test_ops_linalg.py
                     "det slogdet logdet inv solve triangular_solve cholesky eigh eigvalsh svd",
                     *LOSSES_FD, *SHAPES2_FD, *INDEX2_FD, *XENT_FD, *CONV_FD, *RANDOM_FD,
                     *VOLUMES_FD])  # fmt: skip
    no_gradient = {"floor", "ceil", "round", "argmax", "argmin", "less", "less_equal", "greater",
                   "greater_equal", "equal", "not_equal", "logical_and", "logical_or",
                   "logical_not", "stop_gradient", "one_hot", "floordiv", "eye", "argsort",
                   "top_k_indices"}  # fmt: skip
    aliases = {"add": "+", "sub": "-", "mul": "*", "div": "/", "matmul": "@"}
    missing = [
        name
        for name in ops.public_ops()
        if name not in no_gradient and aliases.get(name, name) not in text
    ]
    assert missing == []
