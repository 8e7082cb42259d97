"""TensorFlow reference cases: ops and attributes added from issue 30's spec gaps.

erfinv (tf.math.erfinv) and xlog1py (tf.math.xlog1py), truncatemod (tf.truncatemod),
silu/swish's beta (tf.nn.silu(features, beta)), pad's constant_values=-inf, and diag /
diag_part at an offset k (tf.linalg.diag(k=...), tf.linalg.diag_part(k=...)): values and
gradients at ordinary points and at the edges, second derivatives, and third ones where a
gradient reads the op's output (erfinv).
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import INF, NAN, X4, In, derivative, expr, hessian, spec

U5 = [-0.875, -0.25, 0.0, 0.5, 0.96875]

# ============================================================================================
# erfinv: TensorFlow's kernel ndtri(0.5 * x + 0.5) * sqrt(1/2); its gradient reads y
# ============================================================================================
expr("erfinv", "erfinv(x)", {"x": U5}, lambda v: tf.math.erfinv(v.x))
expr(
    "erfinv_tails",
    "erfinv(x)",
    {"x": [-0.999999, -0.9, 0.1, 1e-10, 0.999999999]},
    lambda v: tf.math.erfinv(v.x),
    note="both tails of Cephes' ndtri (sqrt(-2 log b) above and below 8) and the centre",
)
expr(
    "erfinv_edges",
    "erfinv(x)",
    {"x": [-1.0, 1.0, -0.0, 1.5, -2.0, NAN]},
    lambda v: tf.math.erfinv(v.x),
    note="+-inf at +-1 (and an inf gradient), +0.0 at -0.0 (0.5 * -0 + 0.5), nan outside",
)
spec(
    "erfinv_float32",
    {"x": In([-0.75, 0.125, 0.5, 0.9375], "float32")},
    {"f": "sum(erfinv(x) * [1, -2, 0.5, 3])"},
    lambda v: tf.reduce_sum(tf.math.erfinv(v.x) * [1, -2, 0.5, 3]),
)
hessian("h_erfinv", "sum(erfinv(x))", {"x": [-0.5, 0.25, 0.75]}, lambda v: tf.reduce_sum(
    tf.math.erfinv(v.x)))  # fmt: skip
derivative(
    "d_erfinv",
    "sum(erfinv(x) * w)",
    {"x": [-0.5, 0.25, 0.75], "w": [1.5, -0.5, 2.0]},
    lambda v: tf.reduce_sum(tf.math.erfinv(v.x) * v.w),
    ["x,x,x", "x,x,x,x", "x,w,x", "w,x,x"],
    note="_ErfinvGrad reads the output: exp(square(y)) differentiated through y = erfinv(x)",
)

# ============================================================================================
# xlog1py: x * log1p(y), 0 where x == 0; _XLog1pyGrad
# ============================================================================================
expr(
    "xlog1py",
    "xlog1py(x, y)",
    {"x": [1.5, -0.5, 2.0, 0.25], "y": [0.5, 3.0, -0.5, 1e-10]},
    lambda v: tf.math.xlog1py(v.x, v.y),
)
expr(
    "xlog1py_broadcast",
    "xlog1py(x, y)",
    {"x": [[0.5, 0.0, -1.0]], "y": [[2.0], [-0.75]]},
    lambda v: tf.math.xlog1py(v.x, v.y),
)
expr(
    "xlog1py_x_zero",
    "xlog1py(x, y)",
    {"x": [0.0, 0.0, 0.0, 1.0, 2.0], "y": [-1.0, 2.0, NAN, -1.0, -2.0]},
    lambda v: tf.math.xlog1py(v.x, v.y),
    note="0 where x == 0 (even at y = -1 or nan), and so is the gradient to both inputs; "
    "-inf at y = -1 with x != 0, nan below",
)
hessian(
    "h_xlog1py",
    "sum(xlog1py(x, y))",
    {"x": [0.5, 0.0, -2.0], "y": [2.0, 3.0, 0.25]},
    lambda v: tf.reduce_sum(tf.math.xlog1py(v.x, v.y)),
)


# ============================================================================================
# truncatemod: C's fmod. TensorFlow registers no gradient for TruncateMod (tape.gradient
# raises LookupError); gradcli's gradient is the one TensorFlow gives the same remainder
# written x - y * stop_gradient(truncatediv(x, y)), whose value is bit-identical here
# ============================================================================================
def _truncated(v):
    return v.x - v.y * tf.stop_gradient(tf.truncatediv(v.x, v.y))


TRUNC_X = [5.5, -5.5, 7.0, -7.0, 0.75, -4.5]
TRUNC_Y = [2.0, 2.0, -3.0, -3.0, -0.5, 2.0]
spec(
    "truncatemod_values",
    {"x": In([*TRUNC_X, -4.0, -0.0, 3.0, INF, 2.5, 1.0], trainable=False),
     "y": In([*TRUNC_Y, 2.0, 3.0, 0.0, 1.0, INF, NAN], trainable=False),
     "w": [1.0] * 12},
    {"f": "truncatemod(x, y) * w"},
    lambda v: tf.truncatemod(v.x, v.y) * v.w,
    exact=True,
    note="fmod: the dividend's sign (-0.0 for -4 by 2 and for -0.0), nan by 0 and for an "
    "infinite dividend, x for an infinite divisor",
)  # fmt: skip
expr(
    "truncatemod_gradient",
    "truncatemod(x, y)",
    {"x": TRUNC_X, "y": TRUNC_Y},
    _truncated,
    exact=True,
    note="TensorFlow has no TruncateMod gradient: the reference differentiates "
    "x - y * stop_gradient(truncatediv(x, y)) (g to x, -g * trunc(x / y) to y)",
)
expr(
    "truncatemod_broadcast",
    "truncatemod(x, y) * w",
    {"x": [[5.5, -7.0, 3.0]], "y": [[2.0], [-2.5]], "w": [[1.0, -2.0, 0.5]]},
    lambda v: _truncated(v) * v.w,
    exact=True,
    note="TensorFlow has no TruncateMod gradient: the reference is x - y * "
    "stop_gradient(truncatediv(x, y))",
)

# ============================================================================================
# silu / swish with beta: tf.nn.silu(features, beta)'s custom gradient, beta's included
# ============================================================================================
expr("silu_beta", "silu(x, b)", {"x": X4, "b": 1.5}, lambda v: tf.nn.silu(v.x, v.b))
expr(
    "swish_beta_keyword",
    "swish(x, beta=b) * y",
    {"x": X4, "b": -0.75, "y": [1.0, -2.0, 0.5, 3.0]},
    lambda v: tf.nn.swish(v.x, beta=v.b) * v.y,
)
expr(
    "silu_beta_zero",
    "silu(x, b)",
    {"x": [-2.0, 0.5, 3.0], "b": 0.0},
    lambda v: tf.nn.silu(v.x, v.b),
    note="beta = 0: x / 2, and beta's gradient sum(x^2) / 4",
)
expr(
    "silu_beta_literal",
    "silu(x, beta=2)",
    {"x": X4},
    lambda v: tf.nn.silu(v.x, 2.0),
)
expr(
    "silu_beta_tails",
    "silu(x, b)",
    {"x": [-800.0, -40.0, 40.0, 800.0], "b": 2.0},
    lambda v: tf.nn.silu(v.x, v.b),
)
spec(
    "silu_beta_float32",
    {"x": In([-1.5, 0.25, 2.0], "float32"), "b": In(1.25, "float32")},
    {"f": "sum(silu(x, b))"},
    lambda v: tf.reduce_sum(tf.nn.silu(v.x, v.b)),
)
spec(
    "silu_float32_beta_float64",
    {"x": In([-1.5, 0.25, 2.0], "float32"), "b": 1.25},
    {"f": "sum(silu(x, b))"},
    lambda v: tf.reduce_sum(tf.nn.silu(v.x, v.b)),
    note="TensorFlow casts beta to the features' dtype: beta's gradient comes back through "
    "the cast as float64",
)
hessian(
    "h_silu_beta",
    "sum(silu(x, b))",
    {"x": [-0.75, 0.5, 1.25], "b": 1.5},
    lambda v: tf.reduce_sum(tf.nn.silu(v.x, v.b)),
)

# ============================================================================================
# pad with constant_values=-inf (a max-pool's padding written by hand)
# ============================================================================================
expr(
    "pad_minus_inf",
    "pad(x, [[1, 2]], constant_values=-inf)",
    {"x": [0.5, -1.5, 2.0]},
    lambda v: tf.pad(v.x, [[1, 2]], constant_values=-INF),
    exact=True,
)
expr(
    "pad_minus_inf_max_pool",
    "sum(max_pool1d(pad(x, [[0, 0], [1, 1], [0, 0]], constant_values=-inf), 2, 1, 'VALID'))",
    {"x": [[[-0.5], [-2.0], [-0.25]]]},
    lambda v: tf.reduce_sum(
        tf.nn.max_pool1d(tf.pad(v.x, [[0, 0], [1, 1], [0, 0]], constant_values=-INF), 2, 1, "VALID")
    ),
    exact=True,
    note="-inf never wins a window of real elements: the padding gets no gradient",
)
expr(
    "pad_inf_exp",
    "sum(exp(-pad(x, [[1, 0], [0, 1]], constant_values=inf)) * w)",
    {"x": [[0.5, -1.0]], "w": [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]},
    lambda v: tf.reduce_sum(tf.exp(-tf.pad(v.x, [[1, 0], [0, 1]], constant_values=INF)) * v.w),
)

# ============================================================================================
# diag and diag_part at an offset k (MatrixDiagV3, MatrixDiagPartV3: one diagonal)
# ============================================================================================
V3 = [0.5, -1.25, 2.0]
M34 = [[0.5, -1.25, 2.0, 1.0], [-0.75, 1.5, 3.25, -2.0], [1.75, 0.25, -0.5, 2.5]]
W44 = [[1.0, -2.0, 0.5, 3.0], [2.0, 1.5, -1.0, 0.25], [-0.5, 4.0, 1.0, -3.0],
       [0.75, -1.5, 2.5, 1.0]]  # fmt: skip
expr(
    "diag_k_above",
    "diag(v, k=1) * w",
    {"v": V3, "w": W44},
    lambda v: tf.linalg.diag(v.v, k=1) * v.w,
    exact=True,
)
expr(
    "diag_k_below_rows_given",
    "diag(v, k=-2, num_rows=5, padding_value=-inf)",
    {"v": V3},
    lambda v: tf.linalg.diag(v.v, k=-2, num_rows=5, padding_value=-INF),
    exact=True,
    note="5 rows given: the columns are the least that fit (3); -inf elsewhere",
)
expr(
    "diag_k_cols_given_batch",
    "diag(v, k=1, num_cols=5) * 2",
    {"v": [[0.5, -1.25], [2.0, 3.0]]},
    lambda v: tf.linalg.diag(v.v, k=1, num_cols=5) * 2,
    exact=True,
)
for _k in (1, 3, -1, -2):
    expr(
        f"diag_part_k{_k}".replace("-", "m"),
        f"diag_part(x, k={_k}) * w",
        {"x": M34, "w": [1.5, -2.0, 0.5][: min(3 + min(_k, 0), 4 - max(_k, 0))]},
        lambda v, k=_k: tf.linalg.diag_part(v.x, k=k) * v.w,
        exact=True,
    )
expr(
    "diag_part_k_batch",
    "sum(diag_part(x, k=-1) ** 2)",
    {"x": [M34, [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]]},
    lambda v: tf.reduce_sum(tf.linalg.diag_part(v.x, k=-1) ** 2),
)
hessian(
    "h_diag_k",
    "sum(diag(v, k=-1) * diag(v, k=-1) * w)",
    {"v": [0.5, -1.25], "w": [[1.0, 2.0, 0.5], [-1.0, 3.0, 2.0], [0.25, -2.0, 1.5]]},
    lambda v: tf.reduce_sum(tf.linalg.diag(v.v, k=-1) * tf.linalg.diag(v.v, k=-1) * v.w),
    wrt=["v"],
    exact=True,
)
hessian(
    "h_diag_part_k",
    "sum(diag_part(x, k=1) ** 3)",
    {"x": [[0.5, -1.25, 2.0], [-0.75, 1.5, 3.25]]},
    lambda v: tf.reduce_sum(tf.linalg.diag_part(v.x, k=1) ** 3),
)
