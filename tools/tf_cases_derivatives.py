"""TensorFlow reference cases: third and fourth derivatives through nested tapes.

Each sequence "x,y,y" is d/dy d/dy d/dx F with x's tape innermost (tools/tf_reference.py's
tf_nested): tape3.jacobian(tape2.jacobian(tape1.gradient(F, x), y), y).
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import c, derivative

S3 = ["x,x,x", "x,x,x,x"]

# --- smooth elementwise functions -------------------------------------------------------------
derivative(
    "d_exp_log",
    "sum(exp(x) * log(y))",
    {"x": [-0.5, 0.75], "y": [0.5, 2.0]},
    lambda v: tf.reduce_sum(tf.exp(v.x) * tf.math.log(v.y)),
    ["x,x,x", "y,y,y", "x,y,y", "y,x,x", "x,x,x,x", "y,y,y,y", "x,y,x,y"],
)
derivative(
    "d_tanh", "sum(tanh(x))", {"x": [-0.75, 0.5, 1.25]}, lambda v: tf.reduce_sum(tf.tanh(v.x)), S3
)
derivative("d_tanh_scalar", "tanh(x)", {"x": 0.5}, lambda v: tf.tanh(v.x), ["x", *S3])
derivative(
    "d_sigmoid",
    "sum(sigmoid(x))",
    {"x": [-2.0, 0.0, 1.5]},
    lambda v: tf.reduce_sum(tf.sigmoid(v.x)),
    S3,
)
derivative(
    "d_softplus",
    "sum(softplus(x))",
    {"x": [-2.0, 0.0, 3.0]},
    lambda v: tf.reduce_sum(tf.nn.softplus(v.x)),
    S3,
)
derivative(
    "d_sin_cos",
    "sum(sin(x) * cos(y))",
    {"x": [0.25, -1.5], "y": [2.0, 0.5]},
    lambda v: tf.reduce_sum(tf.sin(v.x) * tf.cos(v.y)),
    ["x,x,x", "x,y,x", "y,y,x", "x,y,y,x", "y,y,y,y"],
)
derivative(
    "d_pow",
    "sum(x ** y)",
    {"x": [0.5, 2.0], "y": [1.5, 3.0]},
    lambda v: tf.reduce_sum(v.x**v.y),
    ["x,x,x", "y,y,y", "x,y,x", "y,x,x", "x,x,x,x", "y,x,y,x"],
)
derivative(
    "d_pow_cube_at_zero",
    "sum(x ** 3.0)",
    {"x": [0.0, 2.0, -1.5]},
    lambda v: tf.reduce_sum(v.x ** c(3.0)),
    S3,
    note="the fourth derivative is 0 * pow(x, -1): nan at x = 0, in TensorFlow too",
)
derivative(
    "d_div",
    "sum(x / y)",
    {"x": [0.5, -2.0], "y": [1.5, -0.5]},
    lambda v: tf.reduce_sum(v.x / v.y),
    ["y,y,y", "x,y,y", "y,x,y", "x,x,x", "y,y,y,y", "y,x,y,y"],
    note="1 / 1.5 rounds, and the orders chain several divisions: a few ulps, not exact",
)
derivative("d_sqrt", "sum(sqrt(x))", {"x": [0.25, 2.0]}, lambda v: tf.reduce_sum(tf.sqrt(v.x)), S3)
derivative(
    "d_erf", "sum(erf(x))", {"x": [-0.5, 1.0]}, lambda v: tf.reduce_sum(tf.math.erf(v.x)), S3
)
derivative(
    "d_lgamma",
    "sum(lgamma(x))",
    {"x": [0.5, 3.0, 7.5]},
    lambda v: tf.reduce_sum(tf.math.lgamma(v.x)),
    S3,
)
derivative(
    "d_log1p_square",
    "sum(log1p(square(x)))",
    {"x": [-0.75, 0.5]},
    lambda v: tf.reduce_sum(tf.math.log1p(tf.square(v.x))),
    S3,
)

# --- matmul, reductions, softmax ---------------------------------------------------------------
derivative(
    "d_matmul_exp",
    "sum(exp(x @ w))",
    {"x": [[0.5, -1.0]], "w": [[0.25, -0.5], [0.75, 0.5]]},
    lambda v: tf.reduce_sum(tf.exp(tf.matmul(v.x, v.w))),
    ["w,w,w", "x,w,x", "w,w,w,w", "x,x,w,w"],
)
derivative(
    "d_matmul_cube",
    "sum((x @ w) * (x @ w) * (x @ w))",
    {"x": [[0.5, -1.0], [2.0, 0.25]], "w": [[1.5, -0.5], [0.25, 2.0]]},
    lambda v: tf.reduce_sum(tf.matmul(v.x, v.w) * tf.matmul(v.x, v.w) * tf.matmul(v.x, v.w)),
    ["x,x,x", "w,x,w"],
)
derivative(
    "d_reduce",
    "mean(x * x * x * x) + sum(x) * prod(x)",
    {"x": [1.0, -3.0, 2.0]},
    lambda v: tf.reduce_mean(v.x * v.x * v.x * v.x) + tf.reduce_sum(v.x) * tf.reduce_prod(v.x),
    S3,
    note="mean's gradient divides by 3, which rounds",
)
derivative(
    "d_max_tie",
    "max(x) * sum(x * x * x)",
    {"x": [1.0, 3.0, 3.0]},
    lambda v: tf.reduce_max(v.x) * tf.reduce_sum(v.x * v.x * v.x),
    S3,
    note="max splits a tie evenly: the third derivative's max row is shared by x[1], x[2]",
)
derivative(
    "d_softmax",
    "sum(softmax(x) * w)",
    {"x": [-0.75, 0.5, 1.25], "w": [1.0, -2.0, 0.5]},
    lambda v: tf.reduce_sum(tf.nn.softmax(v.x) * v.w),
    ["x,x,x", "x,x,x,x", "w,x,x"],
)
derivative(
    "d_logsumexp",
    "logsumexp(x)",
    {"x": [-0.75, 0.5, 1.25]},
    lambda v: tf.reduce_logsumexp(v.x),
    S3,
    ulps=16,
    note="the fourth derivative of logsumexp cancels (softmax's terms of both signs): "
    "6 ulps of its largest element",
)

# --- kinks, ties and connectivity -----------------------------------------------------------
derivative(
    "d_relu",
    "sum(relu(x))",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.nn.relu(v.x)),
    ["x,x", *S3],
    exact=True,
)
derivative(
    "d_relu_cubic",
    "sum(relu(x) * x * x)",
    {"x": [-1.0, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.nn.relu(v.x) * v.x * v.x),
    S3,
    exact=True,
)
derivative(
    "d_abs",
    "sum(abs(x))",
    {"x": [-1.5, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.abs(v.x)),
    ["x,x", *S3],
    exact=True,
)
derivative(
    "d_abs_cubic",
    "sum(abs(x) * x * x)",
    {"x": [-1.5, 0.0, 2.0]},
    lambda v: tf.reduce_sum(tf.abs(v.x) * v.x * v.x),
    S3,
    exact=True,
)
derivative(
    "d_maximum",
    "sum(maximum(x, y) * x * y)",
    {"x": [1.0, 2.0, 3.0], "y": [2.0, 2.0, 2.0]},
    lambda v: tf.reduce_sum(tf.maximum(v.x, v.y) * v.x * v.y),
    ["x,x,x", "y,y,y", "x,y,x", "x,y,y", "x,x,y,y"],
    exact=True,
)
derivative(
    "d_maximum_square",
    "sum(square(maximum(x, y)) * x)",
    {"x": [1.0, 2.0, 3.0], "y": [2.0, 2.0, 2.0]},
    lambda v: tf.reduce_sum(tf.square(tf.maximum(v.x, v.y)) * v.x),
    ["x,x,x", "y,y,y", "y,x,y", "x,x,x,x"],
    exact=True,
)
derivative(
    "d_cubic_connectivity",
    "sum(x * x * y)",
    {"x": [0.5, -2.0], "y": [1.5, 3.0]},
    lambda v: tf.reduce_sum(v.x * v.x * v.y),
    ["x,x,x", "x,x,y", "y,x,x", "y,y,x", "x,x,y,x", "x", "x,y"],
    exact=True,
    note="d2/dx2 = 2y has no x: d3/dx3 is None; d/dy of x*x is None past order 2",
)
derivative(
    "d_sign_zero",
    "sum(sign(x * y) * x * x)",
    {"x": [-1.0, 2.0], "y": [0.5, 3.0]},
    lambda v: tf.reduce_sum(tf.sign(v.x * v.y) * v.x * v.x),
    ["x,x,x", "x,y,x", "y,x,x", "x,x,y,x"],
    exact=True,
)
derivative(
    "d_where_clip",
    "sum(where(x > 0, x * x * x, -x) + clip(x, -1, 1) * x * x)",
    {"x": [-2.0, 0.5, 1.0, 3.0]},
    lambda v: tf.reduce_sum(
        tf.where(v.x > 0, v.x * v.x * v.x, -v.x) + tf.clip_by_value(v.x, -1.0, 1.0) * v.x * v.x
    ),
    S3,
    exact=True,
)
