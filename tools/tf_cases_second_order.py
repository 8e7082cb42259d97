"""TensorFlow reference cases: second derivatives through nested tapes."""

from __future__ import annotations

import tensorflow as tf
from tf_cases import c, hessian

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
hessian(
    "h_prod", "prod(x)", {"x": [2.0, -0.5, 3.0, 1.5]}, lambda v: tf.reduce_prod(v.x), exact=True
)
hessian(
    "h_prod_one_zero", "prod(x)", {"x": [2.0, 0.0, 3.0]}, lambda v: tf.reduce_prod(v.x), exact=True
)
hessian(
    "h_prod_two_zeros", "prod(x)", {"x": [0.0, 2.0, 0.0]}, lambda v: tf.reduce_prod(v.x), exact=True
)
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
    exact=True,
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
    exact=True,
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
hessian(
    "h_cond",
    "cond(sum(x) > 0, sum(x * x * y), sum(y * y))",
    {"x": [0.5, -0.25, 1.0], "y": [1.5, -2.0, 0.5]},
    lambda v: tf.cond(
        tf.reduce_sum(v.x) > 0,
        lambda: tf.reduce_sum(v.x * v.x * v.y),
        lambda: tf.reduce_sum(v.y * v.y),
    ),
    exact=True,
)
hessian(
    "h_cond_untaken",
    "cond(sum(x) > 0, sum(x * x * y), sum(y * y))",
    {"x": [-0.5, -0.25, 0.5], "y": [1.5, -2.0, 0.5]},
    lambda v: tf.cond(
        tf.reduce_sum(v.x) > 0,
        lambda: tf.reduce_sum(v.x * v.x * v.y),
        lambda: tf.reduce_sum(v.y * v.y),
    ),
    exact=True,
    note="x reaches the output only through the untaken branch: its blocks are None",
)
