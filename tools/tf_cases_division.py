"""TensorFlow reference cases: floor division and the no-NaN kernels
(gradcli/core/ops/division.py, gradcli/core/ops/kernels.py).

floormod (FloorMod, its gradient _FloorModGrad: g to x, -g * floor_div(x, y) to y) on both
signs of each operand, at a jump (x / y an integer: TensorFlow uses the formula there too),
broadcast, and its alias mod; floordiv (FloorDiv: no gradient); div_no_nan and mul_no_nan
(DivNoNan, MulNoNan) at y = 0, with inf and nan numerators; second derivatives.
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import INF, NAN, expr, hessian

XS = [5.5, -5.5, 5.5, -5.5, 0.75, -3.0]
YS = [2.0, 2.0, -2.0, -2.0, 0.5, 1.5]  # the last two: x / y an integer (a jump)

# ============================================================================================
# floormod, mod, floordiv
# ============================================================================================
expr(
    "floormod_signs",
    "floormod(x, y)",
    {"x": XS, "y": YS},
    lambda v: tf.math.floormod(v.x, v.y),
    exact=True,
)
expr("mod_alias", "mod(x, y)", {"x": XS, "y": YS}, lambda v: tf.math.mod(v.x, v.y), exact=True)
expr(
    "floormod_times_x",
    "x * floormod(x, y)",
    {"x": [0.3, -1.7, 2.9], "y": [0.7, 1.1, -0.4]},
    lambda v: v.x * tf.math.floormod(v.x, v.y),
    exact=True,
)
expr(
    "floormod_broadcast",
    "floormod(x, y)",
    {"x": [[1.25, -2.5, 3.75]], "y": [[0.5], [-1.5]]},
    lambda v: tf.math.floormod(v.x, v.y),
    exact=True,
)
expr(
    "floordiv_only",
    "floordiv(x, y)",
    {"x": XS, "y": YS},
    lambda v: tf.math.floordiv(v.x, v.y),
    exact=True,
)
expr(
    "floordiv_times_x",
    "x * floordiv(x, y)",
    {"x": XS, "y": YS},
    lambda v: v.x * tf.math.floordiv(v.x, v.y),
    exact=True,
)

# ============================================================================================
# div_no_nan, mul_no_nan: 0 where y == 0, whatever x is
# ============================================================================================
expr(
    "div_no_nan",
    "div_no_nan(x, y)",
    {"x": [1.5, -0.5, 2.0, 3.0], "y": [0.5, -4.0, 0.25, 2.0]},
    lambda v: tf.math.divide_no_nan(v.x, v.y),
    exact=True,
)
expr(
    "div_no_nan_zeros",
    "div_no_nan(x, y)",
    {"x": [1.5, 0.0, INF, NAN, 2.0], "y": [0.0, 0.0, 0.0, 0.0, -0.0]},
    lambda v: tf.math.divide_no_nan(v.x, v.y),
    exact=True,
)
expr(
    "mul_no_nan",
    "mul_no_nan(x, y)",
    {"x": [1.5, -0.5, 2.0], "y": [0.5, -4.0, 0.25]},
    lambda v: tf.math.multiply_no_nan(v.x, v.y),
    exact=True,
)
expr(
    "mul_no_nan_zeros",
    "mul_no_nan(x, y)",
    {"x": [1.5, INF, NAN, 2.0], "y": [0.0, 0.0, 0.0, -0.0]},
    lambda v: tf.math.multiply_no_nan(v.x, v.y),
    exact=True,
)

# ============================================================================================
# Second derivatives
# ============================================================================================
hessian(
    "h_floormod",
    "sum(x * floormod(x, y))",
    {"x": [0.3, -1.7, 2.9], "y": [0.7, 1.1, -0.4]},
    lambda v: tf.reduce_sum(v.x * tf.math.floormod(v.x, v.y)),
    exact=True,
)
hessian(
    "h_div_no_nan",
    "sum(div_no_nan(x, y) * x)",
    {"x": [0.5, -2.0, 4.0], "y": [1.0, 0.0, -2.0]},
    lambda v: tf.reduce_sum(tf.math.divide_no_nan(v.x, v.y) * v.x),
    exact=True,
)
hessian(
    "h_mul_no_nan",
    "sum(mul_no_nan(x, y) * x)",
    {"x": [0.5, -2.0, 4.0], "y": [1.0, 0.0, -2.0]},
    lambda v: tf.reduce_sum(tf.math.multiply_no_nan(v.x, v.y) * v.x),
    exact=True,
)
