"""The cases of tools/tf_reference.py: gradcli text beside the equivalent TensorFlow code.

Each case is a gradcli expression (output `f`; every name is a float64 input) or a small
spec (inputs with dtypes, graph entries, functions, outputs, wrt, grad_ys), its input
values, and a function computing the same thing with TensorFlow from the inputs `v`
(v.x is input x as a tensor; v.watch(name, t) makes an intermediate a gradient target).

tolerance "exact": bit-identical results are expected (only + - * /, selections and
reductions whose every partial result is exact, as with small dyadic numbers);
"close": transcendental functions or rounded reductions, compared within a few ulps.

TensorFlow's CPU kernels run with denormals flushed to zero; gradcli computes with
IEEE subnormals. The cases keep away from results in the subnormal range (below about
2.2e-308), where the two differ by design.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tensorflow as tf

D = tf.float64
F = tf.float32
NAN, INF = float("nan"), float("inf")


def c(value, dtype=D):
    """A TensorFlow constant (a tensor, not a Python float: tf.cond needs tensors)."""
    return tf.constant(value, dtype)


def f64(t):
    return tf.cast(t, D)


@dataclass
class In:
    """A spec input: its value, dtype and whether it is trainable."""

    value: object
    dtype: str = "float64"
    trainable: bool = True


@dataclass
class Case:
    id: str
    tf: Callable
    inputs: dict[str, In]
    expr: str | None = None
    graph: dict[str, str] | None = None
    functions: dict | None = None
    outputs: list[str] | None = None
    wrt: list[str] | None = None
    grad_ys: dict | None = None
    tolerance: str = "close"
    cli: bool = False
    note: str = ""

    def output_names(self) -> list[str]:
        if self.expr is not None:
            return ["f"]
        return self.outputs or [list(self.graph)[-1]]

    def targets(self) -> list[str]:
        if self.wrt:
            return list(self.wrt)
        return [n for n, i in self.inputs.items() if i.trainable and i.dtype.startswith("float")]


@dataclass
class Hessian:
    id: str
    expr: str
    inputs: dict[str, In]
    tf: Callable
    wrt: list[str] | None = None
    tolerance: str = "close"
    note: str = ""


CASES: list[Case] = []
HESSIANS: list[Hessian] = []


def _inputs(at: dict) -> dict[str, In]:
    return {k: v if isinstance(v, In) else In(v) for k, v in at.items()}


def expr(id, text, at, fn, *, exact=False, wrt=None, cli=False, note=""):
    """A case given as one expression; every input is a trainable float64."""
    CASES.append(
        Case(
            id,
            fn,
            _inputs(at),
            expr=text,
            wrt=wrt,
            tolerance="exact" if exact else "close",
            cli=cli,
            note=note,
        )
    )


def spec(id, inputs, graph, fn, *, exact=False, cli=False, note="", **kw):
    """A case given as a spec: inputs {name: value or In}, graph {entry: expression}."""
    CASES.append(
        Case(
            id,
            fn,
            _inputs(inputs),
            graph=graph,
            tolerance="exact" if exact else "close",
            cli=cli,
            note=note,
            **kw,
        )
    )


def hessian(id, text, at, fn, *, wrt=None, exact=False, note=""):
    HESSIANS.append(Hessian(id, text, _inputs(at), fn, wrt, "exact" if exact else "close", note))


X4 = [-1.5, -0.25, 0.5, 2.0]
M23 = [[0.5, -1.25, 2.0], [-0.75, 1.5, 3.25]]
W23 = [[1.5, -0.5, 2.0], [0.25, -2.0, 1.0]]

# ============================================================================================
# Elementwise ops at ordinary points
# ============================================================================================
expr("neg", "-x", {"x": X4}, lambda v: -v.x, exact=True)
expr("sin", "sin(x)", {"x": X4}, lambda v: tf.sin(v.x))
expr("cos", "cos(x)", {"x": X4}, lambda v: tf.cos(v.x))
expr("tan", "tan(x)", {"x": [-1.0, -0.25, 0.5, 1.2]}, lambda v: tf.tan(v.x))
expr("exp", "exp(x)", {"x": X4}, lambda v: tf.exp(v.x))
expr("log", "log(x)", {"x": [0.25, 0.5, 2.0, 3.0]}, lambda v: tf.math.log(v.x))
expr("log1p", "log1p(x)", {"x": [-0.5, 0.0, 0.5, 3.0]}, lambda v: tf.math.log1p(v.x))
expr("sqrt", "sqrt(x)", {"x": [0.25, 2.0, 9.0]}, lambda v: tf.sqrt(v.x))
expr("square", "square(x)", {"x": X4}, lambda v: tf.square(v.x), exact=True)
expr("abs", "abs(x)", {"x": X4}, lambda v: tf.abs(v.x), exact=True)
expr("sign", "sign(x) * x", {"x": X4}, lambda v: tf.sign(v.x) * v.x, exact=True)
expr("tanh", "tanh(x)", {"x": X4}, lambda v: tf.tanh(v.x))
expr("sigmoid", "sigmoid(x)", {"x": X4}, lambda v: tf.sigmoid(v.x))
expr("relu", "relu(x)", {"x": X4}, lambda v: tf.nn.relu(v.x), exact=True)
expr("softplus", "softplus(x)", {"x": X4}, lambda v: tf.nn.softplus(v.x))
expr("floor_times_x", "x * floor(x)", {"x": X4}, lambda v: v.x * tf.floor(v.x), exact=True)
expr("ceil_times_x", "x * ceil(x)", {"x": X4}, lambda v: v.x * tf.math.ceil(v.x), exact=True)
expr(
    "round_half_even",
    "x * round(x)",
    {"x": [-1.5, -0.5, 0.5, 1.5, 2.5, 2.75]},
    lambda v: v.x * tf.round(v.x),
    exact=True,
)
# chained elementwise (the executor's scalar fast path on 0-d values)
expr(
    "scalar_chain",
    "exp(sin(x) * y) / (1 + square(y)) - log1p(x * x)",
    {"x": 0.75, "y": -1.25},
    lambda v: tf.exp(tf.sin(v.x) * v.y) / (1.0 + tf.square(v.y)) - tf.math.log1p(v.x * v.x),
)

# ============================================================================================
# Arithmetic, broadcasting
# ============================================================================================
expr("add_broadcast", "x + y", {"x": M23, "y": [0.5, 1.0, -2.0]}, lambda v: v.x + v.y, exact=True)
expr("sub_broadcast", "x - y", {"x": M23, "y": [[0.5], [1.0]]}, lambda v: v.x - v.y, exact=True)
expr(
    "mul_broadcast",
    "x * y",
    {"x": M23, "y": [0.5, 1.0, -2.0]},
    lambda v: v.x * v.y,
    exact=True,
    cli=True,
)
expr("mul_scalar_input", "x * s", {"x": M23, "s": 1.5}, lambda v: v.x * v.s, exact=True)
expr(
    "div_broadcast",
    "x / y",
    {"x": M23, "y": [0.5, 4.0, -2.0]},
    lambda v: v.x / v.y,
    exact=True,
)
expr(
    "div_inexact",
    "x / y",
    {"x": [1.0, 2.0, -7.0], "y": [3.0, 0.1, 1.7]},
    lambda v: v.x / v.y,
    exact=True,
    note="correctly rounded division: exact even when the quotient is not representable",
)
expr(
    "literals_weakly_typed",
    "2 * x - x / 4 + 1",
    {"x": X4},
    lambda v: 2.0 * v.x - v.x / 4.0 + 1.0,
    exact=True,
)
expr(
    "polynomial",
    "x**3 - 2*x*y + y**2",
    {"x": 1.5, "y": -0.5},
    lambda v: v.x**3.0 - 2.0 * v.x * v.y + v.y**2.0,
)
expr(
    "tutorial_z",
    "x**2 + y*x - 3*y",
    {"x": 3.0, "y": 2.0},
    lambda v: v.x**2.0 + v.y * v.x - 3.0 * v.y,
    cli=True,
    note="the second gradient is 0, not -1",
)

# ============================================================================================
# Division, log and sqrt at zero: the infinities and NaNs TensorFlow gives
# ============================================================================================
expr("log_at_zero", "log(x)", {"x": [0.0, -0.0, 1.0, -1.0]}, lambda v: tf.math.log(v.x))
expr("sqrt_at_zero", "sqrt(x)", {"x": [0.0, 4.0, -1.0]}, lambda v: tf.sqrt(v.x))
expr("reciprocal_at_zero", "1 / x", {"x": [0.0, -0.0, 2.0]}, lambda v: 1.0 / v.x, exact=True)
expr(
    "div_by_zero",
    "x / y",
    {"x": [1.0, 0.0, -1.0, 2.0], "y": [0.0, 0.0, 0.0, -0.0]},
    lambda v: v.x / v.y,
    exact=True,
)
expr("log1p_at_minus_one", "log1p(x)", {"x": [-1.0, -2.0]}, lambda v: tf.math.log1p(v.x))
expr(
    "tan_at_pole",
    "tan(x)",
    {"x": [np.pi / 2, -np.pi / 2]},
    lambda v: tf.tan(v.x),
)

# ============================================================================================
# pow, including x <= 0 for both gradients
# ============================================================================================
expr("pow_positive", "x ** y", {"x": [0.5, 2.0, 3.0], "y": [1.5, -2.0, 0.5]}, lambda v: v.x**v.y)
expr(
    "pow_nonpositive_base",
    "pow(x, y)",
    {"x": [-2.0, -2.0, 0.0, 0.0, 0.0, -0.0], "y": [2.0, 0.5, 2.0, 0.5, 0.0, 3.0]},
    lambda v: tf.pow(v.x, v.y),
)
expr(
    "pow_scalar_exponent_at_zero",
    "x ** 2 + x ** 0.5 + x ** 0",
    {"x": [0.0, 1.0, 4.0]},
    lambda v: v.x**2.0 + v.x**0.5 + v.x**0.0,
)
expr(
    "pow_broadcast",
    "x ** y",
    {"x": [[0.5, 2.0, 3.0], [1.5, 1.0, 0.25]], "y": [2.0, -1.0, 0.5]},
    lambda v: v.x**v.y,
)
expr(
    "pow_negative_base_integer_exponent",
    "x ** 3",
    {"x": [-2.0, -0.5]},
    lambda v: v.x**3.0,
)

# ============================================================================================
# maximum, minimum: ties give the whole gradient to the first argument
# ============================================================================================
expr(
    "maximum_ties",
    "maximum(x, y)",
    {"x": [1.0, 2.0, 3.0, -0.0], "y": [2.0, 2.0, 2.0, 0.0]},
    lambda v: tf.maximum(v.x, v.y),
    exact=True,
    cli=True,
)
expr(
    "minimum_ties",
    "minimum(x, y)",
    {"x": [1.0, 2.0, 3.0, 0.0], "y": [2.0, 2.0, 2.0, -0.0]},
    lambda v: tf.minimum(v.x, v.y),
    exact=True,
)
expr(
    "maximum_broadcast",
    "maximum(x, y)",
    {"x": M23, "y": [0.5, 0.0, 3.25]},
    lambda v: tf.maximum(v.x, v.y),
    exact=True,
)
expr(
    "minimum_scalar_literal",
    "minimum(x, 0.5)",
    {"x": X4},
    lambda v: tf.minimum(v.x, 0.5),
    exact=True,
)

# ============================================================================================
# Kinks at zero
# ============================================================================================
expr("relu_kink", "relu(x)", {"x": [-1.0, 0.0, -0.0, 2.0]}, lambda v: tf.nn.relu(v.x), exact=True)
expr("abs_kink", "abs(x)", {"x": [-1.5, 0.0, -0.0, 2.0]}, lambda v: tf.abs(v.x), exact=True)
expr(
    "sign_connected_zero",
    "sign(x)",
    {"x": [-2.0, 0.0, -0.0, 3.0]},
    lambda v: tf.sign(v.x),
    exact=True,
    cli=True,
    note="connected, gradient zero (not None)",
)

# ============================================================================================
# Comparisons, logic, rounding, argmax: no gradient
# ============================================================================================
_CMP = {
    "less": ("<", tf.less),
    "less_equal": ("<=", tf.less_equal),
    "greater": (">", tf.greater),
    "greater_equal": (">=", tf.greater_equal),
    "equal": ("==", tf.equal),
    "not_equal": ("!=", tf.not_equal),
}
for _name, (_sym, _fn) in _CMP.items():
    expr(
        f"compare_{_name}",
        f"x * (x {_sym} y)",
        {"x": [1.0, 2.0, 3.0], "y": [2.0, 2.0, 2.0]},
        lambda v, fn=_fn: v.x * f64(fn(v.x, v.y)),
        exact=True,
    )
expr(
    "compare_output_bool",
    "x > y",
    {"x": [1.0, 2.0, 3.0], "y": 2.0},
    lambda v: v.x > v.y,
    exact=True,
    cli=True,
)
expr(
    "logical_ops",
    "where(logical_and(x > 0, logical_not(y > 0)), x, y) + where(logical_or(x > 1, y > 1), x, 0)",
    {"x": [-1.0, 0.5, 2.0, 1.5], "y": [1.0, -1.0, -2.0, 3.0]},
    lambda v: (
        tf.where(tf.logical_and(v.x > 0, tf.logical_not(v.y > 0)), v.x, v.y)
        + tf.where(tf.logical_or(v.x > 1, v.y > 1), v.x, 0.0)
    ),
    exact=True,
)
expr("floor_only", "floor(x)", {"x": X4}, lambda v: tf.floor(v.x), exact=True)
expr("ceil_only", "ceil(x)", {"x": X4}, lambda v: tf.math.ceil(v.x), exact=True)
expr("round_only", "round(x)", {"x": [0.5, 1.5, -2.5]}, lambda v: tf.round(v.x), exact=True)
spec(
    "argmax_argmin",
    {"x": [[0.5, 3.0, -1.0], [2.0, 2.0, 1.0]]},
    {
        "f": "x + cast(argmax(x), 'float64') * 10"
        " + reshape(cast(argmin(x, axis=1), 'float64'), [2, 1])"
    },
    lambda v: {
        "f": v.x
        + f64(tf.argmax(v.x, axis=0)) * 10.0
        + tf.reshape(f64(tf.argmin(v.x, axis=1)), [2, 1])
    },
    exact=True,
)
expr(
    "argmax_only",
    "cast(argmax(x), 'float64')",
    {"x": [1.0, 3.0, 2.0]},
    lambda v: f64(tf.argmax(v.x, axis=0)),
    exact=True,
)

# ============================================================================================
# where: both sides computed and connected (the traps)
# ============================================================================================
expr(
    "where_log_trap",
    "where(x > 0, log(x), 0)",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.where(v.x > 0, tf.math.log(v.x), 0.0),
    cli=True,
)
expr(
    "where_sqrt_trap",
    "where(x > 0, sqrt(x), 0)",
    {"x": [0.0, 4.0, -1.0]},
    lambda v: tf.where(v.x > 0, tf.sqrt(v.x), 0.0),
    cli=True,
)
expr(
    "where_pow_half_trap",
    "where(x > 0, x ** 0.5, 0)",
    {"x": [0.0, 4.0, -1.0]},
    lambda v: tf.where(v.x > 0, v.x**0.5, 0.0),
)
expr(
    "where_reciprocal_trap",
    "where(x != 0, 1 / x, 0)",
    {"x": [0.0, 2.0, -4.0]},
    lambda v: tf.where(v.x != 0, 1.0 / v.x, 0.0),
    exact=True,
)
expr(
    "where_broadcast",
    "where(c > 0, x * y, x - y)",
    {"c": [1.0, -1.0, 2.0], "x": M23, "y": [[0.5], [-2.0]]},
    lambda v: tf.where(v.c > 0, v.x * v.y, v.x - v.y),
    exact=True,
)
expr(
    "where_safe_log",
    "where(x > 0, log(where(x > 0, x, 1)), 0)",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.where(v.x > 0, tf.math.log(tf.where(v.x > 0, v.x, 1.0)), 0.0),
)

# ============================================================================================
# clip: at a bound the gradient goes to x; lo > hi
# ============================================================================================
expr(
    "clip_bounds",
    "clip(x, 0, 1)",
    {"x": [-0.5, 0.0, 0.5, 1.0, 1.5]},
    lambda v: tf.clip_by_value(v.x, 0.0, 1.0),
    exact=True,
    cli=True,
)
expr(
    "clip_tensor_bounds",
    "clip(x, lo, hi)",
    {"x": [-1.0, 0.0, 0.5, 1.0, 2.0], "lo": 0.0, "hi": 1.0},
    lambda v: tf.clip_by_value(v.x, v.lo, v.hi),
    exact=True,
)
expr(
    "clip_lo_above_hi",
    "clip(x, lo, hi)",
    {"x": [0.5, 1.0, 1.5, 2.0, 3.0], "lo": 2.0, "hi": 1.0},
    lambda v: tf.clip_by_value(v.x, v.lo, v.hi),
    exact=True,
)
expr(
    "clip_vector_bounds",
    "clip(x, lo, hi)",
    {"x": [-1.0, 0.5, 2.0, 0.5], "lo": [0.0, 0.5, 0.0, 1.0], "hi": [1.0, 1.0, 2.0, 0.0]},
    lambda v: tf.clip_by_value(v.x, v.lo, v.hi),
    exact=True,
)

# ============================================================================================
# cond: only the taken branch is evaluated and connected
# ============================================================================================
for _x, _tag in ((2.0, "taken"), (-1.0, "untaken")):
    expr(
        f"cond_literal_{_tag}",
        "cond(x > 0, x * y, 0.0)",
        {"x": _x, "y": 3.0},
        lambda v: tf.cond(v.x > 0, lambda: v.x * v.y, lambda: c(0.0)),
        exact=True,
        cli=True,
        note="TensorFlow needs a tensor for the constant branch (a Python float raises TypeError)",
    )
    spec(
        f"cond_tensor_constant_{_tag}",
        {"x": _x, "y": 3.0, "zero": In(0.0, trainable=False)},
        {"z": "cond(x > 0, x*y, zero)"},
        lambda v: tf.cond(v.x > 0, lambda: v.x * v.y, lambda: v.zero),
        exact=True,
    )
for _s, _tag in ((1.0, "true"), (-3.0, "false")):
    expr(
        f"cond_vector_{_tag}",
        "cond(sum(x) > 0, x * 2, -x * y)",
        {"x": [0.5, -1.0, _s], "y": [1.5, 2.0, -0.5]},
        lambda v: tf.cond(tf.reduce_sum(v.x) > 0, lambda: v.x * 2.0, lambda: -v.x * v.y),
        exact=True,
    )
expr(
    "cond_untaken_branch_would_be_nan",
    "cond(x > 0, log(x), x * 2)",
    {"x": -1.0},
    lambda v: tf.cond(v.x > 0, lambda: tf.math.log(v.x), lambda: v.x * 2.0),
    exact=True,
)
expr(
    "cond_nested",
    "cond(x > 0, cond(y > 0, x * y, x - y), y * y)",
    {"x": 1.5, "y": -2.0},
    lambda v: tf.cond(
        v.x > 0,
        lambda: tf.cond(v.y > 0, lambda: v.x * v.y, lambda: v.x - v.y),
        lambda: v.y * v.y,
    ),
    exact=True,
)

# ============================================================================================
# stop_gradient
# ============================================================================================
expr(
    "stop_gradient",
    "stop_gradient(x) * y",
    {"x": 2.0, "y": 3.0},
    lambda v: tf.stop_gradient(v.x) * v.y,
    exact=True,
    cli=True,
)
expr(
    "stop_gradient_one_path",
    "x * stop_gradient(x) + stop_gradient(x * y)",
    {"x": [1.5, -2.0], "y": [0.5, 4.0]},
    lambda v: v.x * tf.stop_gradient(v.x) + tf.stop_gradient(v.x * v.y),
    exact=True,
)

# ============================================================================================
# Reductions
# ============================================================================================
T232 = [[[0.5, -1.0], [2.0, 0.25], [-1.5, 3.0]], [[1.0, 0.75], [-0.5, 2.5], [0.125, -2.0]]]
expr("sum_all", "sum(x)", {"x": T232}, lambda v: tf.reduce_sum(v.x), exact=True)
expr(
    "sum_axes_keepdims",
    "sum(x, axis=[0, 2], keepdims=true) * w",
    {"x": T232, "w": [[[1.5], [-2.0], [0.5]]]},
    lambda v: tf.reduce_sum(v.x, axis=[0, 2], keepdims=True) * v.w,
    exact=True,
)
expr(
    "sum_negative_axis",
    "sum(x, axis=-1) * w",
    {"x": T232, "w": [[1.0, -1.0, 2.0], [0.5, 0.25, -4.0]]},
    lambda v: tf.reduce_sum(v.x, axis=-1) * v.w,
    exact=True,
)
expr("mean_all", "mean(x)", {"x": T232}, lambda v: tf.reduce_mean(v.x))
expr(
    "mean_axis",
    "mean(x, axis=1) * w",
    {"x": T232, "w": [[1.0, -1.0], [2.0, 0.5]]},
    lambda v: tf.reduce_mean(v.x, axis=1) * v.w,
)
expr("max_ties", "max(x)", {"x": [1.0, 3.0, 3.0]}, lambda v: tf.reduce_max(v.x), exact=True)
expr(
    "max_three_ties",
    "max(x)",
    {"x": [2.0, 2.0, 1.0, 2.0]},
    lambda v: tf.reduce_max(v.x),
    note="1/3 each",
)
expr(
    "max_axis_ties",
    "max(x, axis=1) * w",
    {"x": [[1.0, 3.0, 3.0], [4.0, -1.0, 2.0]], "w": [2.0, -1.0]},
    lambda v: tf.reduce_max(v.x, axis=1) * v.w,
    exact=True,
)
expr(
    "min_ties_keepdims",
    "min(x, axis=0, keepdims=true) * w",
    {"x": [[1.0, 3.0, -2.0], [1.0, -1.0, 2.0]], "w": [[2.0, -1.0, 0.5]]},
    lambda v: tf.reduce_min(v.x, axis=0, keepdims=True) * v.w,
    exact=True,
)
expr("min_all", "min(x)", {"x": T232}, lambda v: tf.reduce_min(v.x), exact=True)
expr("prod_no_zero", "prod(x)", {"x": [2.0, 3.0, 0.5, 4.0]}, lambda v: tf.reduce_prod(v.x))
expr(
    "prod_one_zero",
    "prod(x)",
    {"x": [2.0, 0.0, 3.0, -0.5]},
    lambda v: tf.reduce_prod(v.x),
    exact=True,
)
expr(
    "prod_two_zeros",
    "prod(x)",
    {"x": [0.0, 2.0, 0.0, 3.0]},
    lambda v: tf.reduce_prod(v.x),
    exact=True,
)
expr(
    "prod_axis",
    "prod(x, axis=1) * w",
    {"x": [[2.0, 0.0, 3.0], [1.5, -2.0, 0.5], [0.0, 0.0, 4.0]], "w": [1.0, 2.0, -1.0]},
    lambda v: tf.reduce_prod(v.x, axis=1) * v.w,
    exact=True,
)
expr(
    "prod_axes_keepdims",
    "prod(x, axis=[0, 2], keepdims=true) * w",
    {"x": T232, "w": [[[1.0], [-1.0], [2.0]]]},
    lambda v: tf.reduce_prod(v.x, axis=[0, 2], keepdims=True) * v.w,
)
expr(
    "logsumexp_all",
    "logsumexp(x)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]},
    lambda v: tf.reduce_logsumexp(v.x),
)
expr(
    "logsumexp_axis",
    "logsumexp(x, axis=1) * w",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [1.0, -2.0]},
    lambda v: tf.reduce_logsumexp(v.x, axis=1) * v.w,
)
expr(
    "logsumexp_keepdims",
    "logsumexp(x, axis=0, keepdims=true) * w",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [[1.0, -2.0, 0.5]]},
    lambda v: tf.reduce_logsumexp(v.x, axis=0, keepdims=True) * v.w,
)
expr(
    "logsumexp_neg_inf",
    "logsumexp(x, axis=1)",
    {"x": [[-INF, 0.0, 1.0], [-INF, -INF, -INF], [-INF, -INF, 2.0]]},
    lambda v: tf.reduce_logsumexp(v.x, axis=1),
)
expr(
    "logsumexp_pos_inf",
    "logsumexp(x)",
    {"x": [INF, 1.0, -2.0]},
    lambda v: tf.reduce_logsumexp(v.x),
)
expr(
    "logsumexp_large",
    "logsumexp(x, axis=1) * w",
    {"x": [[1000.0, 1000.5, 999.0], [-1000.0, -999.25, -1001.0]], "w": [1.0, 1.0]},
    lambda v: tf.reduce_logsumexp(v.x, axis=1) * v.w,
)
expr(
    "softmax_last_axis",
    "sum(softmax(x) * w)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
)
expr(
    "softmax_axis0",
    "sum(softmax(x, axis=0) * w)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "w": [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x, axis=0) * v.w),
)
expr(
    "softmax_output",
    "softmax(x)",
    {"x": [3.0, 1.0, -2.0, 700.0]},
    lambda v: tf.nn.softmax(v.x),
    note="the gradient of sum(softmax) is rounding noise around 0: only the outputs matter",
)
expr(
    "softmax_large",
    "sum(softmax(x) * w)",
    {"x": [1000.0, 1001.0, 998.5], "w": [1.0, -1.0, 2.0]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
)
expr(
    "cross_entropy",
    "-sum(labels * (x - logsumexp(x, axis=1, keepdims=true)))",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "labels": [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]},
    lambda v: -tf.reduce_sum(v.labels * (v.x - tf.reduce_logsumexp(v.x, axis=1, keepdims=True))),
    wrt=["x"],
)

# --- cumsum, cumprod ---------------------------------------------------------------------------
_CUM = [(False, False), (True, False), (False, True), (True, True)]
for _ex, _rev in _CUM:
    _tag = f"{'exclusive' if _ex else 'inclusive'}_{'reverse' if _rev else 'forward'}"
    _kw = f"exclusive={str(_ex).lower()}, reverse={str(_rev).lower()}"
    expr(
        f"cumsum_{_tag}",
        f"cumsum(x, axis=1, {_kw}) * w",
        {"x": M23, "w": W23},
        lambda v, e=_ex, r=_rev: tf.cumsum(v.x, axis=1, exclusive=e, reverse=r) * v.w,
        exact=True,
    )
    expr(
        f"cumprod_{_tag}",
        f"cumprod(x, {_kw}) * w",
        {"x": [2.0, -0.5, 4.0, 1.5], "w": [1.0, 2.0, -1.0, 0.5]},
        lambda v, e=_ex, r=_rev: tf.math.cumprod(v.x, exclusive=e, reverse=r) * v.w,
        exact=True,
    )
    expr(
        f"cumprod_zero_{_tag}",
        f"cumprod(x, {_kw}) * w",
        {"x": [2.0, 0.0, 4.0, 1.5], "w": [1.0, 2.0, -1.0, 0.5]},
        lambda v, e=_ex, r=_rev: tf.math.cumprod(v.x, exclusive=e, reverse=r) * v.w,
        exact=True,
    )
expr(
    "cumprod_axis0_2d",
    "cumprod(x, axis=0) * w",
    {"x": M23, "w": W23},
    lambda v: tf.math.cumprod(v.x, axis=0) * v.w,
    exact=True,
)

# ============================================================================================
# matmul: 1-D operands and broadcast batch dimensions (numpy semantics)
# ============================================================================================
_rng = np.random.default_rng(7)


def _dyadic(*shape):
    """Small multiples of 1/4: every product and partial sum is exact in any order."""
    return (_rng.integers(-8, 9, size=shape) / 4.0).tolist()


expr(
    "matmul_2d",
    "x @ y",
    {"x": _dyadic(2, 3), "y": _dyadic(3, 4)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
    cli=True,
)
expr(
    "matmul_2d_inexact",
    "matmul(x, y)",
    {"x": [[0.1, 0.7, -1.3], [2.9, 0.3, 0.11]], "y": [[1.7, -0.2], [0.45, 3.1], [-2.2, 0.6]]},
    lambda v: tf.matmul(v.x, v.y),
)
expr(
    "matmul_vec_mat",
    "x @ y",
    {"x": _dyadic(3), "y": _dyadic(3, 2)},
    lambda v: tf.squeeze(tf.matmul(v.x[None, :], v.y), axis=-2),
    exact=True,
)
expr(
    "matmul_mat_vec",
    "x @ y",
    {"x": _dyadic(2, 3), "y": _dyadic(3)},
    lambda v: tf.squeeze(tf.matmul(v.x, v.y[:, None]), axis=-1),
    exact=True,
)
expr(
    "matmul_vec_vec",
    "x @ y",
    {"x": _dyadic(4), "y": _dyadic(4)},
    lambda v: tf.squeeze(tf.matmul(v.x[None, :], v.y[:, None])),
    exact=True,
)
expr(
    "matmul_batch",
    "x @ y",
    {"x": _dyadic(2, 3, 4), "y": _dyadic(2, 4, 2)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
)
expr(
    "matmul_batch_broadcast",
    "x @ y",
    {"x": _dyadic(2, 1, 2, 3), "y": _dyadic(3, 3, 2)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
)
expr(
    "matmul_batch_times_matrix",
    "x @ y",
    {"x": _dyadic(2, 3, 4), "y": _dyadic(4, 2)},
    lambda v: tf.matmul(v.x, v.y),
    exact=True,
)
expr(
    "matmul_vec_batch",
    "x @ y",
    {"x": _dyadic(4), "y": _dyadic(2, 4, 3)},
    lambda v: tf.squeeze(tf.matmul(v.x[None, :], v.y), axis=-2),
    exact=True,
)
expr(
    "matmul_batch_vec",
    "x @ y",
    {"x": _dyadic(2, 3, 4), "y": _dyadic(4)},
    lambda v: tf.squeeze(tf.matmul(v.x, v.y[:, None]), axis=-1),
    exact=True,
)

# ============================================================================================
# Shapes: indexing and slicing, concat, stack, reshape, transpose, broadcast_to
# ============================================================================================
X34 = _dyadic(3, 4)
for _i, (_idx, _tf_idx) in enumerate(
    [
        ("[1]", lambda x: x[1]),
        ("[-1]", lambda x: x[-1]),
        ("[0, -2]", lambda x: x[0, -2]),
        ("[:, 2]", lambda x: x[:, 2]),
        ("[1:3, :]", lambda x: x[1:3, :]),
        ("[-2:, -1]", lambda x: x[-2:, -1]),
        ("[::2, 1::2]", lambda x: x[::2, 1::2]),
        ("[::-1, ::-2]", lambda x: x[::-1, ::-2]),
        ("[-1:0:-1, :-1]", lambda x: x[-1:0:-1, :-1]),
        ("[:, 5:]", lambda x: x[:, 5:]),
    ]
):
    expr(
        f"index_{_i}",
        f"x{_idx} * 3 + x{_idx} * x{_idx}",
        {"x": X34},
        lambda v, ix=_tf_idx: ix(v.x) * 3.0 + ix(v.x) * ix(v.x),
        exact=True,
        note=f"x{_idx}",
    )
expr(
    "index_overlapping",
    "x[1:] * x[:-1]",
    {"x": [0.5, -1.0, 2.0, 1.5]},
    lambda v: v.x[1:] * v.x[:-1],
    exact=True,
)
for _axis in (0, 1, -1):
    expr(
        f"concat_axis{_axis}",
        f"concat([x, y, x * y], {_axis}) * w",
        {
            "x": [[0.5, -1.0], [2.0, 0.25]],
            "y": [[1.5, 2.0], [-0.5, 4.0]],
            "w": _dyadic(6, 2) if _axis == 0 else _dyadic(2, 6),
        },
        lambda v, a=_axis: tf.concat([v.x, v.y, v.x * v.y], a) * v.w,
        exact=True,
    )
    expr(
        f"stack_axis{_axis}",
        f"stack([x, y, x * y], axis={_axis}) * w",
        {
            "x": [0.5, -1.0],
            "y": [1.5, 2.0],
            "w": _dyadic(3, 2) if _axis == 0 else _dyadic(2, 3),
        },
        lambda v, a=_axis: tf.stack([v.x, v.y, v.x * v.y], axis=a) * v.w,
        exact=True,
    )
expr(
    "list_of_tensors",
    "[x, y * 2] * w",
    {"x": [0.5, -1.0], "y": [1.5, 2.0], "w": [[1.0, -2.0], [0.5, 3.0]]},
    lambda v: tf.stack([v.x, v.y * 2.0]) * v.w,
    exact=True,
)
expr(
    "reshape",
    "reshape(x, [3, -1]) * w",
    {"x": _dyadic(2, 3, 2), "w": _dyadic(3, 4)},
    lambda v: tf.reshape(v.x, [3, -1]) * v.w,
    exact=True,
)
expr(
    "transpose_default",
    "transpose(x) * w",
    {"x": _dyadic(2, 3), "w": _dyadic(3, 2)},
    lambda v: tf.transpose(v.x) * v.w,
    exact=True,
)
expr(
    "transpose_axes",
    "transpose(x, [1, 2, 0]) * w",
    {"x": _dyadic(2, 3, 4), "w": _dyadic(3, 4, 2)},
    lambda v: tf.transpose(v.x, [1, 2, 0]) * v.w,
    exact=True,
)
expr(
    "broadcast_to_vector",
    "broadcast_to(x, [2, 3]) * w",
    {"x": [0.5, -1.0, 2.0], "w": W23},
    lambda v: tf.broadcast_to(v.x, [2, 3]) * v.w,
    exact=True,
)
expr(
    "broadcast_to_column",
    "broadcast_to(x, [2, 2, 3]) * w",
    {"x": [[0.5], [-1.0]], "w": _dyadic(2, 2, 3)},
    lambda v: tf.broadcast_to(v.x, [2, 2, 3]) * v.w,
    exact=True,
)
expr(
    "broadcast_to_scalar",
    "broadcast_to(x, [3]) * w",
    {"x": 1.5, "w": [1.0, -2.0, 0.25]},
    lambda v: tf.broadcast_to(v.x, [3]) * v.w,
    exact=True,
)
expr(
    "broadcast_scalar_to_matrix_sum",
    "sum(x + y * m)",
    {"x": 0.5, "y": -1.5, "m": W23},
    lambda v: tf.reduce_sum(v.x + v.y * v.m),
    exact=True,
)

# a scalar seed (or a reduction's gradient) reaches an op that broadcasts one of its inputs
expr(
    "broadcast_to_output",
    "broadcast_to(x, [2, 3])",
    {"x": [0.5, -1.0, 2.0]},
    lambda v: tf.broadcast_to(v.x, [2, 3]),
    exact=True,
)
expr(
    "broadcast_after_reduction",
    "sum(x) + sum(x * 2 + y, axis=0)",
    {"x": [[0.5, -1.0], [2.0, 0.25]], "y": 1.5},
    lambda v: tf.reduce_sum(v.x) + tf.reduce_sum(v.x * 2.0 + v.y, axis=0),
    exact=True,
)
expr(
    "where_broadcast_lazy_seed",
    "where(c > 0, x, y)",
    {"c": [[1.0, -1.0, 2.0], [-1.0, 1.0, 1.0]], "x": [0.5, -1.0, 2.0], "y": 1.5},
    lambda v: tf.where(v.c > 0, v.x, v.y),
    exact=True,
)
expr(
    "cond_broadcast_branch",
    "cond(s > 0, x, m)",
    {"s": 1.0, "x": [0.5, -1.0, 2.0], "m": M23},
    lambda v: tf.cond(v.s > 0, lambda: tf.broadcast_to(v.x, [2, 3]), lambda: v.m),
    exact=True,
)
expr(
    "clip_broadcast_bounds",
    "clip(x, lo, hi)",
    {"x": M23, "lo": [0.0, -1.0, 2.5], "hi": 1.0},
    lambda v: tf.clip_by_value(v.x, v.lo, v.hi),
    exact=True,
)

# ============================================================================================
# dtypes: casts, float32 computing in float32, int and bool inputs
# ============================================================================================
expr(
    "cast_roundtrip_float32",
    "cast(cast(x, 'float32'), 'float64') * y",
    {"x": [0.1, -2.7, 1e-50, 3e38], "y": [1.5, -1.0, 2.0, 0.5]},
    lambda v: tf.cast(tf.cast(v.x, F), D) * v.y,
    exact=True,
)
expr(
    "cast_to_int",
    "x * cast(x, 'int32')",
    {"x": [-1.5, 2.75, 0.5]},
    lambda v: v.x * f64(tf.cast(v.x, tf.int32)),
    exact=True,
)
expr(
    "cast_to_int_only",
    "cast(x, 'int32')",
    {"x": [-1.5, 2.75]},
    lambda v: tf.cast(v.x, tf.int32),
    exact=True,
)
expr(
    "cast_bool_to_float",
    "cast(x > 0, 'float64') * y + x * (y > 0)",
    {"x": [-1.0, 2.0, 0.5], "y": [1.5, -1.0, 2.0]},
    lambda v: f64(v.x > 0) * v.y + v.x * f64(v.y > 0),
    exact=True,
)
_X32 = [0.1, -1.7, 2.5, 0.3333]
spec(
    "float32_tanh",
    {"x": In(_X32, "float32")},
    {"f": "sum(tanh(x) * x + exp(x) / (1 + x * x))"},
    lambda v: tf.reduce_sum(tf.tanh(v.x) * v.x + tf.exp(v.x) / (1.0 + v.x * v.x)),
    cli=True,
)
spec(
    "float32_literal_stays_float32",
    {"x": In(_X32, "float32")},
    {"f": "x * 2.1 + 0.1"},
    lambda v: v.x * 2.1 + 0.1,
    exact=True,
)
spec(
    "float32_sqrt_log_at_zero",
    {"x": In([0.0, 4.0, -1.0], "float32")},
    {"a": "sqrt(x)", "b": "log(x)", "c": "where(x > 0, sqrt(x), 0)"},
    lambda v: {"a": tf.sqrt(v.x), "b": tf.math.log(v.x), "c": tf.where(v.x > 0, tf.sqrt(v.x), 0.0)},
    outputs=["a", "b", "c"],
)
spec(
    "float32_reductions",
    {
        "x": In([[0.1, 0.7, -1.3], [2.9, 0.3, 0.11]], "float32"),
        "w": In([[1.7, -0.2], [0.45, 3.1], [-2.2, 0.6]], "float32"),
    },
    {"f": "logsumexp(x @ w) + mean(softmax(x, axis=0) * x) + prod(x) + max(x)"},
    lambda v: (
        tf.reduce_logsumexp(tf.matmul(v.x, v.w))
        + tf.reduce_mean(tf.nn.softmax(v.x, axis=0) * v.x)
        + tf.reduce_prod(v.x)
        + tf.reduce_max(v.x)
    ),
)
spec(
    "float32_to_float64",
    {"x": In([0.1, -1.7], "float32"), "y": [0.1, 2.0]},
    {"f": "cast(x, 'float64') * y + cast(cast(y, 'float32') * x, 'float64')"},
    lambda v: tf.cast(v.x, D) * v.y + tf.cast(tf.cast(v.y, F) * v.x, D),
    exact=True,
)
spec(
    "int_inputs",
    {"x": [1.5, -2.0, 0.5], "n": In([1, 2, 3], "int32"), "m": In(4, "int64")},
    {"f": "x * n + sin(m) + n / m"},
    lambda v: v.x * f64(v.n) + tf.sin(f64(v.m)) + f64(v.n) / f64(v.m),
    wrt=["x", "n", "m"],
    note="int inputs are never connected; zero mode gives int zeros",
)
spec(
    "bool_input",
    {"x": [1.5, -2.0], "flags": In([True, False], "bool")},
    {"f": "where(flags, x, -x * 2)"},
    lambda v: tf.where(v.flags, v.x, -v.x * 2.0),
    wrt=["x", "flags"],
    exact=True,
)
spec(
    "non_trainable_named_in_wrt",
    {"x": [1.5, -2.0], "k": In([2.0, 0.5], trainable=False)},
    {"f": "x * k"},
    lambda v: v.x * v.k,
    wrt=["x", "k"],
    exact=True,
)

# ============================================================================================
# Unconnected inputs, several outputs, grad_ys, gradients w.r.t. intermediates
# ============================================================================================
spec(
    "unused_input",
    {"x": In([[1.0, 2.0]], trainable=False), "w": [[1.0, 0.0], [0.0, 1.0]], "b": [[0.0, 0.0]]},
    {"y": "x + b", "loss": "mean(y)"},
    lambda v: tf.reduce_mean(v.x + v.b),
    exact=True,
    cli=True,
)
spec(
    "multi_output_grad_ys",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "y": [2.0, -1.0, 0.5], "z": 1.5},
    {"a": "x * y", "b": "sum(x * x, axis=1)", "c": "z * 2"},
    lambda v: {"a": v.x * v.y, "b": tf.reduce_sum(v.x * v.x, axis=1), "c": v.z * 2.0},
    outputs=["a", "b", "c"],
    grad_ys={"a": [1.0, -2.0, 0.5], "b": [3.0, -1.0], "c": 0.0},
    exact=True,
    cli=True,
    note="grad_ys broadcast from (3,) to (2, 3); a zero grad_ys still connects z",
)
spec(
    "grad_ys_scalar_broadcast",
    {"x": [0.5, -1.0, 2.0]},
    {"f": "x * x"},
    lambda v: v.x * v.x,
    grad_ys={"f": 2.5},
    exact=True,
)
spec(
    "grad_ys_matrix",
    {"x": [[0.5, -1.0], [2.0, 0.25]]},
    {"f": "sin(x)"},
    lambda v: tf.sin(v.x),
    grad_ys={"f": [[1.0, -2.0], [0.5, 3.0]]},
)


def _wrt_intermediate(v):
    h = v.watch("h", v.x * v.x)
    return tf.reduce_sum(tf.sin(h) * h + v.x)


spec(
    "wrt_intermediate",
    {"x": [0.5, -1.0, 2.0]},
    {"h": "x * x", "y": "sum(sin(h) * h + x)"},
    _wrt_intermediate,
    wrt=["x", "h"],
    note="TensorFlow: tape.watch on the intermediate",
)


def _wrt_intermediate_unused(v):
    h = v.watch("h", v.x * 3.0)
    v.watch("g", v.x * v.x)
    return tf.reduce_sum(h)


spec(
    "wrt_intermediate_unused",
    {"x": [0.5, -1.0]},
    {"h": "x * 3", "g": "x * x", "y": "sum(h)"},
    _wrt_intermediate_unused,
    wrt=["g", "h", "x"],
    exact=True,
    note="g is not on the path to y: None",
)
spec(
    "wrt_output_itself",
    {"x": [0.5, -1.0]},
    {"y": "x * 3"},
    lambda v: v.watch("y", v.x * 3.0),
    wrt=["y", "x"],
    exact=True,
)

# ============================================================================================
# Custom gradients (tf.custom_gradient) and inlined functions
# ============================================================================================


@tf.custom_gradient
def _tf_custom_relu(v):
    def grad(dy):
        return dy * f64(v > 0) * 2.0

    return tf.nn.relu(v), grad


spec(
    "custom_relu",
    {"x": [1.0, -2.0, 0.5]},
    {"y": "custom_relu(x)", "z": "sum(y)"},
    lambda v: tf.reduce_sum(_tf_custom_relu(v.x)),
    functions={"custom_relu": {"params": ["v"], "body": "relu(v)", "grad": "dy * (v > 0) * 2"}},
    exact=True,
    cli=True,
)


@tf.custom_gradient
def _tf_scaled_mul(a, b):
    def grad(dy):
        return dy * b * 3.0, None

    return a * b, grad


spec(
    "custom_two_params_one_none",
    {"x": [1.5, -2.0], "y": [0.5, 4.0]},
    {"f": "sum(scaled_mul(x, y) * x)"},
    lambda v: tf.reduce_sum(_tf_scaled_mul(v.x, v.y) * v.x),
    functions={"scaled_mul": {"params": ["a", "b"], "body": "a * b", "grad": ["dy * b * 3", None]}},
    exact=True,
    note="y reaches f only through the custom function, whose gradient for b is None",
)


@tf.custom_gradient
def _tf_exp_out(v):
    out = tf.exp(v)

    def grad(dy):
        return dy * out

    return out, grad


spec(
    "custom_uses_out",
    {"x": [0.5, -1.0, 2.0]},
    {"f": "sum(my_exp(x * 2) * x)"},
    lambda v: tf.reduce_sum(_tf_exp_out(v.x * 2.0) * v.x),
    functions={"my_exp": {"params": ["v"], "body": "exp(v)", "grad": "dy * out"}},
)


@tf.custom_gradient
def _tf_clip_grad_norm(v):
    def grad(dy):
        return tf.clip_by_value(dy, -1.0, 1.0)

    return tf.identity(v), grad


spec(
    "custom_clipped_identity",
    {"x": [0.5, -1.0, 2.0]},
    {"f": "sum(clipped(x) * [3, -0.5, -2])"},
    lambda v: tf.reduce_sum(_tf_clip_grad_norm(v.x) * c([3.0, -0.5, -2.0])),
    functions={"clipped": {"params": ["v"], "body": "v", "grad": "clip(dy, -1, 1)"}},
    exact=True,
)
spec(
    "function_inlined",
    {"x": [0.5, -1.0, 0.0]},
    {"f": "softsign(x) * softsign(x * 2)"},
    lambda v: (v.x / (1.0 + tf.abs(v.x))) * ((v.x * 2.0) / (1.0 + tf.abs(v.x * 2.0))),
    functions={"softsign": {"params": ["v"], "body": "v / (1 + abs(v))"}},
    note="x reaches f by four paths; the order in which their contributions are added "
    "differs from TensorFlow's AddN, so the last bit may differ",
)

# ============================================================================================
# NaN and infinity propagation
# ============================================================================================
expr("relu_nan", "relu(x)", {"x": [NAN, -INF, INF]}, lambda v: tf.nn.relu(v.x), exact=True)
expr(
    "maximum_nan",
    "maximum(x, y) + minimum(x, y)",
    {"x": [NAN, 1.0, NAN], "y": [1.0, NAN, NAN]},
    lambda v: tf.maximum(v.x, v.y) + tf.minimum(v.x, v.y),
    exact=True,
)
expr(
    "max_reduction_nan",
    "max(x, axis=1) + min(x, axis=1)",
    {"x": [[1.0, NAN, 3.0], [2.0, 5.0, 5.0]]},
    lambda v: tf.reduce_max(v.x, axis=1) + tf.reduce_min(v.x, axis=1),
    exact=True,
)
expr(
    "abs_sign_nan",
    "abs(x) + sign(x)",
    {"x": [NAN, -INF, INF]},
    lambda v: tf.abs(v.x) + tf.sign(v.x),
    exact=True,
)
expr(
    "clip_nan",
    "clip(x, 0, 1)",
    {"x": [NAN, INF, -INF]},
    lambda v: tf.clip_by_value(v.x, 0.0, 1.0),
    exact=True,
)
expr(
    "mul_by_zero_nonfinite",
    "x * 0 + y * x",
    {"x": [NAN, INF, 1.0], "y": [0.0, 0.0, INF]},
    lambda v: v.x * 0.0 + v.y * v.x,
    exact=True,
)
expr(
    "exp_overflow",
    "exp(x) * 0 + exp(-x)",
    {"x": [800.0, -800.0, 0.0]},
    lambda v: tf.exp(v.x) * 0.0 + tf.exp(-v.x),
)
expr(
    "softplus_extremes",
    "softplus(x)",
    {"x": [-1000.0, -40.0, -36.0, -34.0, -20.0, 0.0, 20.0, 33.0, 34.0, 36.0, 40.0, 1000.0]},
    lambda v: tf.nn.softplus(v.x),
)
expr(
    "softplus_nonfinite",
    "softplus(x)",
    {"x": [-INF, INF, NAN]},
    lambda v: tf.nn.softplus(v.x),
)
expr(
    "sigmoid_tanh_extremes",
    "sigmoid(x) + tanh(x)",
    {"x": [-800.0, -40.0, -20.0, 20.0, 40.0, 800.0]},
    lambda v: tf.sigmoid(v.x) + tf.tanh(v.x),
)
expr(
    "sum_with_inf",
    "sum(x * y)",
    {"x": [INF, 1.0, 2.0], "y": [1.0, 0.0, -INF]},
    lambda v: tf.reduce_sum(v.x * v.y),
    exact=True,
)
expr(
    "square_overflow",
    "square(x) - x * x",
    {"x": [1e200, -1e-200]},
    lambda v: tf.square(v.x) - v.x * v.x,
    exact=True,
)

# ============================================================================================
# A small network, end to end
# ============================================================================================
spec(
    "mlp",
    {
        "x": In(_dyadic(4, 3), trainable=False),
        "labels": In([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], trainable=False),
        "w1": [[0.3, -0.2, 0.5, 0.1], [-0.4, 0.6, 0.2, -0.3], [0.25, 0.15, -0.35, 0.45]],
        "b1": [0.1, -0.1, 0.0, 0.05],
        "w2": [[0.5, -0.5], [0.3, 0.2], [-0.6, 0.4], [0.1, -0.1]],
        "b2": [0.0, 0.1],
    },
    {
        "hidden": "relu(x @ w1 + b1)",
        "logits": "hidden @ w2 + b2",
        "log_probs": "logits - logsumexp(logits, axis=1, keepdims=true)",
        "loss": "-mean(sum(labels * log_probs, axis=1))",
    },
    lambda v: (
        -tf.reduce_mean(
            tf.reduce_sum(
                v.labels
                * (
                    (tf.matmul(tf.nn.relu(tf.matmul(v.x, v.w1) + v.b1), v.w2) + v.b2)
                    - tf.reduce_logsumexp(
                        tf.matmul(tf.nn.relu(tf.matmul(v.x, v.w1) + v.b1), v.w2) + v.b2,
                        axis=1,
                        keepdims=True,
                    )
                ),
                axis=1,
            )
        )
    ),
    cli=True,
)

# ============================================================================================
# Second order: Hessians through nested tapes (rows by one-hot seeds)
# ============================================================================================
H3 = [-0.75, 0.5, 1.25]
hessian("h_tanh", "sum(tanh(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.tanh(v.x)))
hessian("h_sigmoid", "sum(sigmoid(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.sigmoid(v.x)))
hessian(
    "h_sqrt",
    "sum(sqrt(x) * w)",
    {"x": [0.25, 2.0, 0.0], "w": [1.0, -2.0, 0.0]},
    lambda v: tf.reduce_sum(tf.sqrt(v.x) * v.w),
)
hessian(
    "h_relu_connected_zero",
    "sum(relu(x) * x)",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.nn.relu(v.x) * v.x),
    exact=True,
)
hessian(
    "h_relu_only",
    "sum(relu(x))",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.nn.relu(v.x)),
    exact=True,
)
hessian(
    "h_abs",
    "sum(abs(x) * x)",
    {"x": [-1.5, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.abs(v.x) * v.x),
    exact=True,
)
hessian(
    "h_softplus",
    "sum(softplus(x))",
    {"x": [-2.0, 0.0, 3.0, -40.0]},
    lambda v: tf.reduce_sum(tf.nn.softplus(v.x)),
)
hessian("h_prod", "prod(x)", {"x": [2.0, -0.5, 3.0, 1.5]}, lambda v: tf.reduce_prod(v.x))
hessian("h_prod_one_zero", "prod(x)", {"x": [2.0, 0.0, 3.0]}, lambda v: tf.reduce_prod(v.x))
hessian("h_prod_two_zeros", "prod(x)", {"x": [0.0, 2.0, 0.0]}, lambda v: tf.reduce_prod(v.x))
hessian("h_logsumexp", "logsumexp(x)", {"x": H3}, lambda v: tf.reduce_logsumexp(v.x))
hessian(
    "h_softmax",
    "sum(softmax(x) * w)",
    {"x": H3, "w": [1.0, -2.0, 0.5]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
    wrt=["x"],
)
hessian(
    "h_matmul",
    "sum(square(x @ w))",
    {"x": [[0.5, -1.0], [2.0, 0.25]], "w": [[1.5, -0.5], [0.25, 2.0]]},
    lambda v: tf.reduce_sum(tf.square(tf.matmul(v.x, v.w))),
    exact=True,
)
hessian(
    "h_broadcast",
    "sum(square(x + b) * x)",
    {"x": [[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], "b": [0.5, 1.0, -2.0]},
    lambda v: tf.reduce_sum(tf.square(v.x + v.b) * v.x),
    exact=True,
)
hessian(
    "h_pow",
    "sum(x ** y)",
    {"x": [0.5, 2.0, 3.0], "y": [1.5, -2.0, 3.0]},
    lambda v: tf.reduce_sum(v.x**v.y),
)
hessian(
    "h_pow_nonpositive",
    "sum(x ** y)",
    {"x": [-2.0, 0.0, 0.0], "y": [2.0, 2.0, 3.0]},
    lambda v: tf.reduce_sum(v.x**v.y),
)
hessian(
    "h_div",
    "sum(x / y)",
    {"x": [0.5, -2.0, 3.0], "y": [1.5, 4.0, -0.5]},
    lambda v: tf.reduce_sum(v.x / v.y),
)
hessian(
    "h_maximum",
    "sum(maximum(x, y) * x * y)",
    {"x": [1.0, 2.0, 3.0], "y": [2.0, 2.0, 2.0]},
    lambda v: tf.reduce_sum(tf.maximum(v.x, v.y) * v.x * v.y),
    exact=True,
)
hessian(
    "h_linear_is_none",
    "sum(x * 3 + y)",
    {"x": [1.0, 2.0], "y": [0.5, -1.0]},
    lambda v: tf.reduce_sum(v.x * 3.0 + v.y),
    exact=True,
    note="the gradient does not depend on x: second derivatives are None",
)
hessian(
    "h_sign_is_none",
    "sum(sign(x))",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.sign(v.x)),
    exact=True,
)
hessian(
    "h_exp_log",
    "sum(exp(x) * log(y))",
    {"x": H3, "y": [0.5, 2.0, 3.0]},
    lambda v: tf.reduce_sum(tf.exp(v.x) * tf.math.log(v.y)),
)
hessian(
    "h_sin_cos_tan",
    "sum(sin(x) * cos(x) + tan(x))",
    {"x": H3},
    lambda v: tf.reduce_sum(tf.sin(v.x) * tf.cos(v.x) + tf.tan(v.x)),
)
hessian(
    "h_mean_max_cumsum",
    "mean(x * x) + max(x) * x[0] + sum(cumsum(x) * x)",
    {"x": [1.0, 3.0, 3.0]},
    lambda v: (
        tf.reduce_mean(v.x * v.x)
        + tf.reduce_max(v.x) * v.x[0]
        + tf.reduce_sum(tf.cumsum(v.x) * v.x)
    ),
    exact=True,
)
hessian(
    "h_cumprod",
    "sum(cumprod(x) * w)",
    {"x": [2.0, -0.5, 1.5], "w": [1.0, 2.0, -1.0]},
    lambda v: tf.reduce_sum(tf.math.cumprod(v.x) * v.w),
    wrt=["x"],
)
hessian(
    "h_where_clip",
    "sum(where(x > 0, x * x * x, -x) + clip(x, -1, 1) * x)",
    {"x": [-2.0, 0.5, 1.0, 3.0]},
    lambda v: tf.reduce_sum(
        tf.where(v.x > 0, v.x * v.x * v.x, -v.x) + tf.clip_by_value(v.x, -1.0, 1.0) * v.x
    ),
    exact=True,
)
hessian(
    "h_structure",
    "sum(concat([x, transpose(reshape(x, [2, 2]))[0]], 0) ** 2 * [1, 2, 3, 4, 5, 6])",
    {"x": [0.5, -1.0, 2.0, 1.5]},
    lambda v: tf.reduce_sum(
        tf.concat([v.x, tf.transpose(tf.reshape(v.x, [2, 2]))[0]], 0) ** 2.0
        * c([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    ),
)
hessian(
    "h_log1p_square",
    "sum(log1p(square(x)))",
    {"x": H3},
    lambda v: tf.reduce_sum(tf.math.log1p(tf.square(v.x))),
)
