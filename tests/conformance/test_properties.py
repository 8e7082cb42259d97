"""Property tests on random well-formed graphs built from the op registry.

(a) gradients match central finite differences; (b) `unconnected: zero` equals `none`
with None replaced by zeros; (c) explain's status agrees with eval's gradient values.
Values come from a seeded numpy generator (never exactly at a kink or a tie); the
domain-restricted ops get arguments mapped into their domain (log(1 + a**2), ...).
"""

from __future__ import annotations

import json
import re

import numpy as np
from helpers import central_difference, invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcli.api import grad

SHAPES = {"s": (), "v": (3,), "m": (2, 3)}  # every pair broadcasts; results stay in this set
UNARY = [
    "sin({})", "cos({})", "tanh({})", "sigmoid({})", "softplus({})", "square({})", "-{}",
    "exp(tanh({}))", "log(1 + square({}))", "log1p(square({}))", "sqrt(1 + square({}))",
    "tan(tanh({}))", "relu({})", "abs({})", "sign({}) * {}", "stop_gradient({})",
    "clip({}, -0.5, 0.5)", "cumsum({}, axis=-1)", "cumprod(tanh({}), axis=-1)",
    "softmax({}, axis=-1)", "pow({}, 3)", "{} ** 2", "cumsum({}, axis=-1, exclusive=true)",
    "cumsum({}, axis=-1, reverse=true)", "cumprod(tanh({}), axis=-1, reverse=true)",
    "where({} > 0.2, {}, 2 * {})", "stack([{}, 2 * {}], axis=0)[1]",
    # the special functions, activations and losses of the op set, inside their domains
    "erf({})", "erfc({})", "atan({})", "sinh({})", "cosh({})", "asinh({})", "expm1({})",
    "acosh(1.5 + square({}))", "atanh(0.5 * tanh({}))", "asin(0.5 * tanh({}))",
    "acos(0.5 * tanh({}))", "log2(1 + square({}))", "log10(1 + square({}))",
    "reciprocal(2 + sin({}))", "rsqrt(1 + square({}))", "cbrt(1.5 + square({}))",
    "xlogy({}, 1 + square({}))", "xdivy({}, 2 + sin({}))", "floormod({}, 0.7)",
    "xlog1py({}, square({}))", "erfinv(0.5 * tanh({}))", "truncatemod({}, 0.7)",
    "silu({}, beta=1.5)",
    "floordiv({}, 0.7) * {}", "div_no_nan({}, 2 + sin({}))", "mul_no_nan({}, cos({}))",
    "leaky_relu({})", "leaky_relu({}, alpha=0.3)", "relu6(4 * {})", "elu({})", "selu({})",
    "silu({})", "swish({})", "softsign({})", "log_sigmoid({})", "mish({})",
    "hard_sigmoid(3 * {})", "gelu({})", "gelu({}, approximate=true)",
    "log_softmax({}, axis=-1)", "sigmoid_cross_entropy(sigmoid({}), {})",
    "floor(2 * {}) + {}", "ceil({}) * {}", "round(3 * {}) * {}", "atan2({}, 2 + cos({}))",
    "mod({}, 0.9)",
    "lgamma(1.5 + square({}))", "digamma(1 + square({}))", "polygamma(1, 1 + square({}))",
    "cummax({}, axis=-1)", "cummin({}, axis=-1, reverse=true)",
    "cumulative_logsumexp({}, axis=-1)",
]  # fmt: skip
# 3 x 3 matrices made of a vector, well away from singular (SPD3) and from tied eigenvalues
SPD3 = "[[3, 0.5, 0], [0.5, 2, 0.25], [0, 0.25, 4]] + 0.2 * tanh(outer({}, {}))"
SYM3 = "[[1, 0.5, 0], [0.5, 3, 0.25], [0, 0.25, 5]] + 0.2 * tanh(outer({}, {}))"
# structural ops, per input shape, that bring the result back to the same shape
STRUCTURAL = {
    (): ["stack([{}, 3 * {}])[1]", "reshape(reshape({}, [1, 1]), [])",
         "cond({} > 0, sin({}), 2 * {})", "sum(broadcast_to({}, [2, 3]))",
         "squeeze(expand_dims({}, 0), 0)", "l2_loss({})", "unstack(stack([{}, {}]))[0]",
         "tile({}, []) * 2", "trace(diag(expand_dims({}, 0)))", "tensordot({}, {}, 0)",
         "sum(eye(2) * {})", "pad({}, []) + repeat({}, 2)[1]", "roll(expand_dims({}, 0), 3, 0)[0]",
         "logmeanexp({}, keepdims=true)",
         # linear algebra on small matrices built from the scalar, away from singularity
         "det([[2, tanh({})], [{}, 1.5]])", "slogdet([[2, tanh({})], [{}, -1.5]])[1]",
         "logdet([[2, tanh({})], [tanh({}), 1.5]])", "eigvalsh([[2, {}], [{}, -1]])[1]",
         "svd([[2, tanh({})], [0.5, 1]])[0]"],
    (3,): ["concat([{}, {}], axis=0)[1:4]", "{}[::-1]", "reshape(reshape({}, [1, 3]), [3])",
           "matmul({}, [[1, 0, 2], [0, 1, 0], [1, 1, 1]])", "matmul(transpose(broadcast_to({}, "
           "[2, 3])), [1.5, -1])", "cond(sum({}) > 0, {} * 2, -{})",
           "gather({}, [2, 0, 2])", "unsorted_segment_sum({}, [1, -1, 1], 3)",
           "segment_sum({}, [0, 0, 2])", "einsum('i,j->j', {}, {})", "outer({}, [1, 2])[:, 1]",
           "flip({}, 0) * {}", "huber({}, sin({})) * {}", "concat(split({}, [1, -1]), 0)",
           "moments({}, 0)[1] * {}", "var({}) + {}", "tile({}, [2])[2:5]",
           "repeat({}, [1, 0, 2]) + {}", "roll({}, -4, 0) * {}",
           "pad({}, [[1, 1]], 'reflect')[1:4] * pad({}, [[2, 0]], 'symmetric')[0:3]",
           "pad({}, [[1, 2]], constant_values=0.5)[1:4]",
           "tensordot({}, [[1, 0, 2], [0, 1, 0], [1, 1, 1]], 1)",
           "diag_part(diag({}) + outer({}, {}))",
           # index ops 2/2: no duplicate in tensor_scatter_update (TensorFlow's gradient
           # convention there is not the function's), no empty unsorted max/min segment
           "gather_nd({}, [[2], [0], [2]])", "scatter_nd([[1], [0], [1]], {}, [3])",
           "tensor_scatter_add({}, [[2], [2]], {}[0:2])",
           "tensor_scatter_update({}, [[1]], {}[0:1] * 2)", "take_along_axis({}, [2, -3, 2], 0)",
           "sort({})", "top_k({}, 3)", "gather({}, argsort({}, direction='DESCENDING'))",
           "take_along_axis({}, top_k_indices({}, 3), 0)", "segment_max({}, [0, 0, 2])",
           "segment_min({}, [0, 0, 2])", "unsorted_segment_min({}, [2, 0, 1], 3)",
           "segment_mean({}, [0, 0, 2])", "unsorted_segment_mean({}, [1, -1, 1], 3)",
           "norm(1 + square({}), ord=inf) + {}", "norm({}, ord=1) * {}", "logmeanexp({}) + {}",
           "reshape(conv1d(reshape({}, [1, 3, 1]), [[[1.0]], [[-0.5]]], 1, 'SAME'), [3])",
           "reshape(max_pool1d(reshape({}, [1, 3, 1]), 2, 1, 'SAME'), [3])",
           "reshape(avg_pool1d(reshape({}, [1, 3, 1]), 2, 1, 'SAME'), [3])",
           f"matmul(inv({SPD3}), {{}})", f"solve({SPD3}, reshape({{}}, [3, 1]))[:, 0]",
           f"triangular_solve({SPD3}, reshape({{}}, [3, 1]), lower=false)[:, 0]",
           f"cholesky({SPD3})[:, 0]", f"eigvalsh({SYM3})", f"eigh({SYM3})[1][:, 1] ** 2",
           "svd([[3, 0, 0], [0, 2, 0], [0, 0, 1]] + 0.2 * tanh(outer({}, [1, 2, 3])))"],
    (2, 3): ["concat([{}, {}], axis=0)[1:3]", "{}[::-1, :] * 0.5 + {}[:, ::-1]",
             "reshape(reshape({}, [6]), [2, 3])", "transpose(transpose({}))",
             "matmul({}, [[1, 0, 2], [0, 1, 0], [1, 1, 1]])", "cumsum({}, axis=0)",
             "softmax({}, axis=0)", "stack([{}[0], {}[1] * {}[0]])",
             "gather({}, [1, 1], axis=0)", "gather({}, [[2, 0, 2], [1, 1, 0]], axis=1, "
             "batch_dims=1)", "einsum('ij,ij->ij', {}, sin({}))", "transpose(einsum('ij->ji', {}))",
             "reverse({}, [0, 1])",
             "squeeze(expand_dims({}, 1), 1)", "concat(split({}, 3, axis=1), 1)",
             "unstack({})[1] * {}", "moments({}, [0])[0] + {}", "std(1 + square({}), axis=0) * {}",
             "expand_dims(huber({}, cos({})), 1) * {}", "band_part({}, 0, 1) + tril({}) * {}",
             "triu({}, 1) + {}", "roll({}, [1, -2], [0, 1])", "tile({}, [2, 1])[1:3]",
             "repeat({}, [2, 0], axis=0)", "pad({}, [[1, 1], [2, 1]], 'reflect')[1:3, 2:5]",
             "transpose(tensordot({}, [[1, 2], [0, 1]], [[0], [1]]))", "diag({}[0])[0:2]",
             "expand_dims(diag_part({}), 1) * {}",
             "gather_nd({}, [[1], [0]])", "scatter_nd([[1], [0]], {}, [2, 3])",
             "gather_nd({}, [[[0], [2], [1]], [[1], [1], [0]]], batch_dims=1)",
             "tensor_scatter_update({}, [[0, 1], [1, 2]], {}[0, 0:2])",
             "tensor_scatter_add({}, [[1], [1]], {})",
             "take_along_axis({}, [[2, 0, 1], [1, 1, 0]], 1)",
             "sort({}, axis=0, direction='DESCENDING')", "top_k({}, 3)",
             "segment_max(concat([{}, 2 * {}], axis=0), [0, 1, 1, 1])",
             "unsorted_segment_max(concat([{}, -{}], axis=0), [1, 0, 0, 1], 2)",
             "segment_mean(concat([{}, {} * 2], axis=0), [0, 0, 1, 1])",
             # the cross entropies with constant labels (TensorFlow's Hessian takes d/dlabels
             # of the gradient to logits as 0, which finite differences do not)
             "expand_dims(softmax_cross_entropy([[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]], {}), 1) "
             "* {}", "expand_dims(sparse_softmax_cross_entropy([2, 0], {}), 1) * {}",
             "expand_dims(binary_crossentropy([[0, 1, 0.5], [1, 0.25, 0]], sigmoid({})), 1) * {}",
             "expand_dims(categorical_crossentropy([[0.2, 0.3, 0.5], [0, 1, 0]], sigmoid({}), "
             "label_smoothing=0.1), 1) * {}",
             "expand_dims(sparse_categorical_crossentropy([2, 0], {}, from_logits=true), 1) * {}",
             "expand_dims(mean_squared_error({}, cos({})) + mean_absolute_error(sin({}), 2 * {}), "
             "1) * {}", "l2_normalize(1 + square({}), axis=1)",
             "norm(1 + square({}), ord=3, axis=0) * {}",
             "reshape(conv2d(reshape({}, [1, 2, 3, 1]), [[[[1.0]], [[0.5]]], [[[-0.5]], "
             "[[2.0]]]], 1, 'SAME'), [2, 3])",
             "reshape(depthwise_conv2d(reshape({}, [1, 2, 3, 1]), [[[[1.0]], [[0.5]]]], "
             "[1, 1, 1, 1], 'SAME'), [2, 3])",
             "reshape(conv2d_transpose(reshape({}, [1, 2, 3, 1]), [[[[1.0]], [[-0.5]]]], "
             "[1, 2, 3, 1], 1, 'SAME'), [2, 3])",
             "reshape(max_pool2d(reshape({}, [1, 2, 3, 1]), 2, 1, 'SAME'), [2, 3])",
             "reshape(avg_pool2d(reshape({}, [1, 1, 2, 3]), [1, 2], 1, 'SAME', 'NCHW'), [2, 3])",
             "solve(matmul({}, transpose({})) + [[2, 0], [0, 2]], {})",
             "expand_dims(svd({} + [[2, 0, 0], [0, 1, 0]]), 1) * {}"],
}  # fmt: skip
BINARY = [
    "({} + {})", "({} - {})", "({} * {})", "({} / (2 + sin({})))", "maximum({}, {})",
    "minimum({}, {})", "pow(1.5 + sigmoid({}), tanh({}))", "where({} > 0, {}, 1)",
]  # fmt: skip
REDUCE = [
    "sum({}{})",
    "mean({}{})",
    "logsumexp({}{})",
    "max({}{})",
    "min({}{})",
    "prod(tanh({}){})",
]

# each example evaluates the spec ~20 times: a third of the profile's budget
fd_budget = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    max_examples=max(10, settings.default.max_examples // 3),
)
fast = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


# what the derivative tests leave out: stop_gradient's finite differences see through it,
# moments' Hessian treats the mean as a constant, as TensorFlow's does, and the sorted
# segment max/min/mean templates leave segment 1 empty, where TensorFlow's second
# derivative is nan (its rules divide by the segment's count) and finite differences' is not
FIRST_ORDER_OFF = ("stop_gradient",)
SECOND_ORDER_OFF = ("stop_gradient", "moments", "segment_max", "segment_min", "segment_mean",
                    "cumulative_logsumexp")  # fmt: skip
# cumulative_logsumexp: TensorFlow's gradient takes log of the upstream gradient, so where
# that is 0 (m - m) the Hessian is nan (0 * inf), not the finite differences' value: the
# TF reference cases h_cumulative_logsumexp* pin both conventions


def _keep(templates, leave_out):
    return [t for t in templates if not any(word in t for word in leave_out)]


@st.composite
def graph_expression(draw, depth: int = 0, leave_out: tuple = ()) -> tuple[str, tuple]:
    """(expression, shape) over inputs s, v, m, without templates naming a leave_out word."""
    if depth >= 3 or draw(st.integers(0, 4)) == 0:
        name = draw(st.sampled_from(sorted(SHAPES)))
        return name, SHAPES[name]
    kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "structural"]))
    if kind == "structural":
        a, shape = draw(graph_expression(depth + 1, leave_out))
        template = draw(st.sampled_from(_keep(STRUCTURAL[shape], leave_out)))
        # parenthesised: `m ** 2` indexed must read (m ** 2)[::-1], not m ** 2[::-1]
        return template.format(*[f"({a})"] * template.count("{}")), shape
    if kind == "unary":
        template = draw(st.sampled_from(_keep(UNARY, leave_out)))
        a, shape = draw(graph_expression(depth + 1, leave_out))
        if "axis=-1" in template and shape == ():
            template = "sin({})"
        return template.format(*[a] * template.count("{}")), shape
    if kind == "binary":
        template = draw(st.sampled_from(BINARY))
        (a, sa), (b, sb) = (
            draw(graph_expression(depth + 1, leave_out)),
            draw(graph_expression(depth + 1, leave_out)),
        )
        shape = tuple(np.broadcast_shapes(sa, sb))
        if template.startswith("where"):
            return template.format(a, b), shape
        return template.format(a, b), shape
    template = draw(st.sampled_from(REDUCE))
    a, shape = draw(graph_expression(depth + 1, leave_out))
    if shape and draw(st.booleans()):
        return template.format(a, ", axis=0"), shape[1:]
    return template.format(a, ""), ()


def spec_text(expr: str, at: dict | None = None) -> str:
    """A spec with inputs s, v, m (zeros, or the given values) and one entry f = sum(expr)."""
    inputs = {n: (np.zeros(shape) if at is None else at[n]).tolist() for n, shape in SHAPES.items()}
    lines = [f"  {n}: {json.dumps(v)}" for n, v in inputs.items()]
    body = f"sum({expr})".replace("'", "''")
    return "inputs:\n" + "\n".join(lines) + f"\ngraph:\n  f: '{body}'\n"


def values(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {name: rng.uniform(-1.5, 1.5, size=shape) for name, shape in SHAPES.items()}


@fd_budget
@given(expr=graph_expression(leave_out=FIRST_ORDER_OFF), seed=st.integers(0, 2**32 - 1))
def test_gradients_match_finite_differences(expr, seed) -> None:
    text = spec_text(expr[0])
    at = values(seed)
    ev = grad(text, at, wrt=list(SHAPES), unconnected="zero", spec=True)
    for name in SHAPES:

        def f(x, name=name):
            return float(grad(text, {**at, name: x}, wrt=[], spec=True).outputs["f"])

        expected = central_difference(f, at[name])
        assert np.allclose(ev.gradients[name], expected, rtol=1e-4, atol=1e-5), (
            text,
            name,
            ev.gradients[name],
            expected,
        )


@fast
@given(expr=graph_expression(), seed=st.integers(0, 2**32 - 1))
def test_unconnected_zero_is_none_with_zeros(expr, seed) -> None:
    text = spec_text(expr[0])
    at = values(seed)
    none = grad(text, at, wrt=list(SHAPES), unconnected="none", spec=True)
    zero = grad(text, at, wrt=list(SHAPES), unconnected="zero", spec=True)
    for name, shape in SHAPES.items():
        assert none.status[name] == zero.status[name]
        if none.gradients[name] is None:
            assert none.status[name] == "unconnected"
            assert zero.gradients[name].shape == shape
            assert not np.any(zero.gradients[name])
        else:
            assert np.array_equal(none.gradients[name], zero.gradients[name], equal_nan=True)


@fd_budget
@given(expr=graph_expression(), seed=st.integers(0, 2**32 - 1))
def test_explain_status_agrees_with_eval(expr, seed) -> None:
    text = spec_text(expr[0], values(seed)).encode()
    ev = invoke("eval", "-", "--format", "json", input=text)
    assert ev.code == 0, ev.stderr
    gradients = json.loads(ev.stdout)["gradients"]
    ex = invoke("explain", "-", "--format", "json", input=text)
    assert ex.code in (0, 1), ex.stderr
    pairs = {p["input"]: p for p in json.loads(ex.stdout)["pairs"]}
    for name, g in gradients.items():
        status = pairs[name]["status"]
        if g["value"] is None:
            assert status == "unconnected", (text, name, status)
            continue
        value = np.asarray(g["value"], dtype=float)
        if not np.all(np.isfinite(value)):  # std at zero variance: sqrt's inf times 0
            assert status == "non_finite", (text, name, status, value)
        elif not np.any(value):
            assert status == "zero", (text, name, status, value)
        elif np.all(value != 0):
            assert status == "connected", (text, name, status, value)
        else:
            assert status == "partially_zero", (text, name, status, value)
    assert ex.code == (0 if all(p["status"] == "connected" for p in pairs.values()) else 1)


def test_lazy_broadcast_regression() -> None:
    # Found by test_gradients_match_finite_differences: the scalar seed of sum() flowed
    # lazily through add and reached s unsummed. By hand: d/ds sum(m + s) = m.size = 6;
    # d/ds [mean(m * s) + sum(sin(v) * s)] = mean(m) + sum(sin(v)).
    m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    res = invoke("eval", "-e", "sum(m + s)", "--at", f"m={m}", "--at", "s=0.5", "--format", "json")
    assert json.loads(res.stdout)["gradients"]["s"]["value"] == 6.0
    expr = "mean(m * s) + sum(sin(v) * s)"
    args = ("--at", f"m={m}", "--at", "s=0.5", "--at", "v=[1, 2, 3]", "--format", "json")
    doc = json.loads(invoke("eval", "-e", expr, *args).stdout)
    expected = 3.5 + np.sin(1.0) + np.sin(2.0) + np.sin(3.0)
    assert np.isclose(doc["gradients"]["s"]["value"], expected, rtol=1e-15, atol=0)


@fd_budget
@given(expr=graph_expression(leave_out=SECOND_ORDER_OFF), seed=st.integers(0, 2**32 - 1))
def test_jacobian_and_hessian_match_finite_differences(expr, seed) -> None:
    from gradcli.api import problem_from_text
    from gradcli.core.jacobian import hessian, jacobian

    text = spec_text(expr[0])
    at = values(seed)
    jac = jacobian(problem_from_text(text, at=at, unconnected="zero"))["f"]
    hess = hessian(problem_from_text(text, at=at, unconnected="zero"))
    g = grad(text, at, wrt=list(SHAPES), unconnected="zero", spec=True).gradients
    for a in SHAPES:
        assert np.allclose(jac[a].value, g[a], rtol=1e-12, atol=1e-12), (text, a)  # f scalar
    for b, shape in SHAPES.items():
        # d/db of every gradient, by central differences over each element of b
        columns = []
        for k in range(int(np.prod(shape, dtype=int))):
            x = at[b].astype(float).copy()
            h = 1e-6 * max(1.0, abs(x.flat[k]))
            x.flat[k] += h
            up = grad(text, {**at, b: x}, wrt=list(SHAPES), unconnected="zero", spec=True)
            x.flat[k] -= 2 * h
            down = grad(text, {**at, b: x}, wrt=list(SHAPES), unconnected="zero", spec=True)
            columns.append({a: (up.gradients[a] - down.gradients[a]) / (2 * h) for a in SHAPES})
        for a in SHAPES:
            expected = np.moveaxis(np.array([c[a] for c in columns]), 0, -1)
            expected = expected.reshape(SHAPES[a] + shape)
            assert np.allclose(hess[a][b].value, expected, rtol=1e-3, atol=1e-4), (
                text,
                a,
                b,
                hess[a][b].value,
                expected,
            )


# public ops no template draws, and why
NOT_DRAWN = {
    "argmax": "an int64 result: no gradient to compare",
    "argmin": "an int64 result: no gradient to compare",
    "one_hot": "int indices in, no gradient",
    "cast": "every input is float64 here; casts appear where dtypes meet",
    "logical_and": "booleans only; comparisons feed where and cond",
    "logical_or": "booleans only",
    "logical_not": "booleans only",
    "less_equal": "a comparison like >, drawn through where",
    "greater_equal": "as less_equal",
    "less": "as less_equal",
    "equal": "equality of random floats is almost never true",
    "not_equal": "as equal",
    "dropout": "a seeded mask (a fixed linear map): tests/core/test_ops_random.py",
    "random_normal": "draws of a shape attribute, constants: tests/core/test_ops_random.py",
    "random_uniform": "as random_normal",
    "conv3d": "5-D operands: tests/core/test_ops_volumes.py",
    "max_pool3d": "float32 only, as TensorFlow's CPU kernel: tests/core/test_ops_volumes.py",
    "avg_pool3d": "as max_pool3d",
}


def test_every_public_op_is_drawn_or_says_why_not():
    from gradcli.core.ops import public_ops

    text = " ".join([*UNARY, *BINARY, *REDUCE, *(t for ts in STRUCTURAL.values() for t in ts)])
    symbols = {"add": "+", "sub": "-", "mul": "*", "div": "/", "pow": "**", "neg": "-",
               "greater": ">", "matmul": "matmul"}  # fmt: skip
    missing = [
        name
        for name in public_ops()
        if name not in NOT_DRAWN
        and not re.search(rf"\b{re.escape(name)}\(", text)
        and symbols.get(name, "\0") not in text
    ]
    assert missing == [], f"add a template for {missing}, or say in NOT_DRAWN why not"
