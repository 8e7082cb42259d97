"""TensorFlow reference cases: elementwise ops, arithmetic, and their conventions."""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_cases import M23, X4, c, expr, f64, spec

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
spec(
    "signed_zero_ties_0d",
    {"p": 0.0, "q": -0.0},
    {"hi": "maximum(p, q)", "lo": "minimum(q, p)", "clipped": "clip(p, q, 1.0)"},
    lambda v: {
        "hi": tf.maximum(v.p, v.q),
        "lo": tf.minimum(v.q, v.p),
        "clipped": tf.clip_by_value(v.p, v.q, c(1.0)),
    },
    outputs=["hi", "lo", "clipped"],
    exact=True,
    note="0-d: TensorFlow's scalar kernel returns the first argument of a tie (its "
    "vectorised kernel, as maximum_ties shows, the second)",
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
