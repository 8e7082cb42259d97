"""TensorFlow reference cases: special functions (gradcli/core/ops/special.py).

Ordinary points, the domain edges (asin at +-1, acosh at 1, atanh at +-1, reciprocal and
rsqrt at 0), TensorFlow's conventions (xlogy/xdivy at x = 0, atan2 at the origin, the
zero-gradient guard of the ReciprocalGrad and RsqrtGrad kernels) and second derivatives.
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import NAN, X4, expr, hessian, spec

tnp = tf.experimental.numpy

U4 = [-0.75, -0.25, 0.5, 0.875]  # inside (-1, 1)
P4 = [0.25, 0.5, 2.0, 3.0]  # positive

# ============================================================================================
# Ordinary points
# ============================================================================================
expr("erf", "erf(x)", {"x": X4}, lambda v: tf.math.erf(v.x))
expr("erfc", "erfc(x)", {"x": X4}, lambda v: tf.math.erfc(v.x))
expr("asin", "asin(x)", {"x": U4}, lambda v: tf.asin(v.x))
expr("acos", "acos(x)", {"x": U4}, lambda v: tf.acos(v.x))
expr("atan", "atan(x)", {"x": X4}, lambda v: tf.atan(v.x))
expr("sinh", "sinh(x)", {"x": X4}, lambda v: tf.sinh(v.x))
expr("cosh", "cosh(x)", {"x": X4}, lambda v: tf.cosh(v.x))
expr("asinh", "asinh(x)", {"x": X4}, lambda v: tf.asinh(v.x))
expr("acosh", "acosh(x)", {"x": [1.25, 1.5, 2.0, 3.0]}, lambda v: tf.acosh(v.x))
expr("atanh", "atanh(x)", {"x": U4}, lambda v: tf.atanh(v.x))
expr("expm1", "expm1(x)", {"x": [-1.5, -1e-10, 0.0, 1e-10, 2.0]}, lambda v: tf.math.expm1(v.x))
expr("log2", "log2(x)", {"x": [*P4, 8.0]}, lambda v: tnp.log2(v.x))
expr("log10", "log10(x)", {"x": [*P4, 100.0]}, lambda v: tnp.log10(v.x))
expr("reciprocal", "reciprocal(x)", {"x": X4}, lambda v: tf.math.reciprocal(v.x), exact=True)
expr("rsqrt", "rsqrt(x)", {"x": P4}, lambda v: tf.math.rsqrt(v.x))
expr("cbrt", "cbrt(x)", {"x": [-8.0, -0.5, 0.25, 27.0]}, lambda v: tnp.cbrt(v.x))
expr(
    "atan2",
    "atan2(y, x)",
    {"y": [1.0, -1.0, 0.5, -2.0], "x": [1.0, 1.0, -1.5, -0.25]},
    lambda v: tf.math.atan2(v.y, v.x),
)
expr(
    "atan2_broadcast",
    "atan2(y, x)",
    {"y": [[0.5], [-1.5]], "x": [1.0, -2.0, 0.25]},
    lambda v: tf.math.atan2(v.y, v.x),
)
expr(
    "xlogy",
    "xlogy(x, y)",
    {"x": [1.5, -0.5, 2.0], "y": [0.5, 3.0, 1.0]},
    lambda v: tf.math.xlogy(v.x, v.y),
)
expr(
    "xdivy",
    "xdivy(x, y)",
    {"x": [1.5, -0.5, 2.0], "y": [0.5, 3.0, -4.0]},
    lambda v: tf.math.xdivy(v.x, v.y),
    exact=True,
)
expr(
    "xlogy_broadcast",
    "xlogy(x, y)",
    {"x": [[0.5, 0.0, -1.0]], "y": [[2.0], [0.25]]},
    lambda v: tf.math.xlogy(v.x, v.y),
)

# ============================================================================================
# Domain edges and TensorFlow's conventions
# ============================================================================================
EDGE = [-1.0, 1.0, 1.5, NAN]
expr("asin_edges", "asin(x)", {"x": EDGE}, lambda v: tf.asin(v.x))
expr("acos_edges", "acos(x)", {"x": EDGE}, lambda v: tf.acos(v.x))
expr("atanh_edges", "atanh(x)", {"x": EDGE}, lambda v: tf.atanh(v.x))
expr("acosh_edges", "acosh(x)", {"x": [1.0, 0.5, NAN]}, lambda v: tf.acosh(v.x))
expr(
    "reciprocal_zeros",
    "reciprocal(x)",
    {"x": [0.0, -0.0, 2.0]},
    lambda v: tf.math.reciprocal(v.x),
    exact=True,
)
expr("rsqrt_at_zero", "rsqrt(x)", {"x": [0.0, -1.0, 4.0]}, lambda v: tf.math.rsqrt(v.x))
# the kernels give 0 where the upstream gradient is 0, so the `where` trap does not fire
expr(
    "reciprocal_where_guard",
    "where(x != 0, reciprocal(x), 0)",
    {"x": [0.0, 2.0, -0.5]},
    lambda v: tf.where(v.x != 0, tf.math.reciprocal(v.x), 0.0),
    exact=True,
    note="ReciprocalGrad is 0 where dy is 0: no nan at x = 0",
)
expr(
    "rsqrt_where_guard",
    "where(x > 0, rsqrt(x), 0)",
    {"x": [0.0, 4.0, 0.25]},
    lambda v: tf.where(v.x > 0, tf.math.rsqrt(v.x), 0.0),
    note="RsqrtGrad is 0 where dy is 0: no nan at x = 0",
)
expr(
    "atan2_origin",
    "atan2(y, x)",
    {"y": [0.0, 0.0, -0.0], "x": [0.0, -1.0, -1.0]},
    lambda v: tf.math.atan2(v.y, v.x),
)
expr(
    "xlogy_x_zero",
    "xlogy(x, y)",
    {"x": [0.0, 0.0, 0.0, 1.0], "y": [0.0, 2.0, NAN, 0.0]},
    lambda v: tf.math.xlogy(v.x, v.y),
    note="0 where x == 0, and so is the gradient to both inputs",
)
spec(
    "xdivy_x_zero",
    {"x": [0.0, 0.0, 0.0, 1.0], "y": [0.0, 2.0, NAN, 0.0]},
    {"f": "xdivy(x, y)"},
    lambda v: tf.math.xdivy(v.x, v.y),
    exact=True,
    note="0 where x == 0, and so is the gradient to both inputs",
    differs={
        "gradient y": "the gradient to y is xdivy(-x, y**2) * g, 0 where x == 0: +0.0 in "
        "gradcli and TensorFlow's scalar kernel, -0.0 (x itself) in its vectorised kernel",
    },
)
expr("cbrt_at_zero", "cbrt(x)", {"x": [0.0, -1.0, 8.0]}, lambda v: tnp.cbrt(v.x))
expr("log2_at_zero", "log2(x)", {"x": [0.0, -1.0, 1.0]}, lambda v: tnp.log2(v.x))
expr(
    "special_scalar_chain",
    "erf(x) * atan(y) + asinh(x * y) - xlogy(y, x) + rsqrt(x) * cbrt(y)",
    {"x": 0.75, "y": -1.25},
    lambda v: (
        tf.math.erf(v.x) * tf.atan(v.y)
        + tf.asinh(v.x * v.y)
        - tf.math.xlogy(v.y, v.x)
        + tf.math.rsqrt(v.x) * tnp.cbrt(v.y)
    ),
)

# ============================================================================================
# Second order
# ============================================================================================
H3 = [-0.75, 0.5, 0.25]
hessian("h_erf", "sum(erf(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.math.erf(v.x)))
hessian("h_asin", "sum(asin(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.asin(v.x)))
hessian("h_acos", "sum(acos(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.acos(v.x)))
hessian("h_atan", "sum(atan(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.atan(v.x)))
hessian("h_atanh", "sum(atanh(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.atanh(v.x)))
hessian("h_asinh", "sum(asinh(x))", {"x": H3}, lambda v: tf.reduce_sum(tf.asinh(v.x)))
hessian("h_acosh", "sum(acosh(x))", {"x": [1.5, 2.0, 3.0]}, lambda v: tf.reduce_sum(tf.acosh(v.x)))
hessian(
    "h_reciprocal",
    "sum(reciprocal(x) * w)",
    {"x": [0.5, -2.0, 4.0], "w": [1.0, 0.0, -3.0]},
    lambda v: tf.reduce_sum(tf.math.reciprocal(v.x) * v.w),
    exact=True,
)
hessian(
    "h_rsqrt",
    "sum(rsqrt(x) * w)",
    {"x": [0.25, 2.0, 4.0], "w": [1.0, 0.0, -3.0]},
    lambda v: tf.reduce_sum(tf.math.rsqrt(v.x) * v.w),
)
hessian(
    "h_atan2",
    "atan2(y, x)",
    {"y": 0.5, "x": -1.5},
    lambda v: tf.math.atan2(v.y, v.x),
)
hessian(
    "h_xlogy",
    "sum(xlogy(x, y))",
    {"x": [0.5, 0.0, -2.0], "y": [2.0, 3.0, 0.25]},
    lambda v: tf.reduce_sum(tf.math.xlogy(v.x, v.y)),
)
hessian(
    "h_xdivy",
    "sum(xdivy(x, y))",
    {"x": [0.5, 0.0, -2.0], "y": [2.0, 3.0, 0.25]},
    lambda v: tf.reduce_sum(tf.math.xdivy(v.x, v.y)),
    exact=True,
)
hessian("h_cbrt", "sum(cbrt(x))", {"x": [-8.0, 0.5, 27.0]}, lambda v: tf.reduce_sum(tnp.cbrt(v.x)))
hessian(
    "h_log10_expm1",
    "sum(log10(x) * expm1(x))",
    {"x": [0.5, 2.0]},
    lambda v: tf.reduce_sum(tnp.log10(v.x) * tf.math.expm1(v.x)),
)
