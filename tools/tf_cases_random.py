"""TensorFlow reference cases: dropout, random_normal and random_uniform.

gradcli draws its masks and values from its own generator, so these cases pin only what
does not depend on the numbers drawn (each case says why its result does not):

- relations between dropout's output and its gradient: y + where(y == 0, x * scale, 0) is
  x * scale everywhere (x nonzero), and its gradient is scale everywhere exactly when the
  gradient keeps the forward's own elements, scaled by TensorFlow's rounded scale;
- rates whose mask is all kept (rate 1e-9) or all dropped (rate 0.9999999) for any
  realistic stream: the scale's rounding (x * float(1 / (1 - rate)), not x / (1 - rate)),
  and where(keep, x * scale, 0) rather than a product (a dropped inf or nan is 0, and an
  infinite upstream gradient gives a dropped element 0, not nan);
- rate 0, which returns x itself (noise_shape unread);
- random draws with stddev 0 or minval == maxval, whose values are mean and minval, and
  whose gradients to mean, minval and maxval are TensorFlow's composition's.
"""

from __future__ import annotations

import tensorflow as tf
from tf_cases import In, expr, hessian, spec

D, F = tf.float64, tf.float32
X8 = [1.5, -0.25, 2.0, -3.0, 0.5, 4.0, -1.0, 0.75]  # nonzero: y == 0 only where dropped
M24 = [[1.5, -0.25, 2.0, -3.0], [0.5, 4.0, -1.0, 0.75]]
ODD = [0.1, 0.7, 1.3, -2.9, 3.3, 1e-3, 7.77, -0.6]  # where x * scale and x / keep differ


def relation(y, x, scale):
    return y + tf.where(y == 0, x * scale, tf.zeros_like(x))


# --- dropout -----------------------------------------------------------------------------------
for rate, seed in ((0.5, 1), (0.25, 7), (0.75, 3)):
    s = 1 / (1 - rate)
    spec(
        f"dropout_relation_rate_{rate}",
        {"x": X8},
        {"y": f"dropout(x, {rate}, seed={seed})", "f": f"y + where(y == 0, x * {s!r}, 0)"},
        lambda v, rate=rate, seed=seed, s=s: relation(tf.nn.dropout(v.x, rate, seed=seed), v.x, s),
        exact=True,
        note="x * scale everywhere, gradient scale everywhere, whatever the mask",
    )
spec(
    "dropout_relation_float32_scale",
    {"x": In(ODD, "float32")},
    {"y": "dropout(x, 0.3, seed=2)", "f": f"y + where(y == 0, x * {1 / 0.7!r}, 0)"},
    lambda v: relation(tf.nn.dropout(v.x, 0.3, seed=2), v.x, 1 / 0.7),
    exact=True,
    note="the scale is 1 / 0.7 rounded to float32 once",
)
spec(
    "dropout_relation_noise_shape",
    {"x": M24},
    {"y": "dropout(x, 0.5, noise_shape=[1, 4], seed=4)", "f": "y + where(y == 0, x * 2, 0)"},
    lambda v: relation(tf.nn.dropout(v.x, 0.5, noise_shape=[1, 4], seed=4), v.x, 2.0),
    exact=True,
)
spec(
    "dropout_noise_shape_broadcasts_x",
    {"x": X8[:4]},
    {"y": "dropout(x, 0.5, noise_shape=[3, 4], seed=5)", "f": "y + where(y == 0, x * 2, 0)"},
    lambda v: relation(tf.nn.dropout(v.x, 0.5, noise_shape=[3, 4], seed=5), v.x, 2.0),
    exact=True,
    note="a noise_shape larger than x makes the result (3, 4); x's gradient sums the rows",
)
expr(
    "dropout_rate_zero",
    "dropout(x, 0.0, noise_shape=[5, 7], seed=1) * x",
    {"x": X8},
    lambda v: tf.nn.dropout(v.x, 0.0, noise_shape=[5, 7], seed=1) * v.x,
    exact=True,
    note="rate 0 returns x before noise_shape is read",
)
for dtype in ("float64", "float32"):
    spec(
        f"dropout_all_kept_scale_{dtype}",
        {"x": In(ODD, dtype), "w": In(X8, dtype)},
        {"f": "dropout(x, 1e-9, seed=6) * w"},
        lambda v: tf.nn.dropout(v.x, 1e-9, seed=6) * v.w,
        exact=True,
        note="every element kept: x * float(1 / (1 - 1e-9)) in x's dtype",
    )
spec(
    "dropout_all_dropped_nonfinite",
    {"x": [float("inf"), float("-inf"), float("nan"), 1.0], "w": [float("inf")] * 4},
    {"f": "dropout(x, 0.9999999, seed=8) * w"},
    lambda v: tf.nn.dropout(v.x, 0.9999999, seed=8) * v.w,
    note="every element dropped: where(keep, x * scale, 0) is 0 for inf and nan (0 * inf "
    "= nan, wherever w is inf), and x's gradient is 0 with an infinite upstream gradient",
)
hessian(
    "dropout_all_kept_hessian",
    "sum(dropout(x, 1e-9, seed=6) ** 3)",
    {"x": X8[:4]},
    lambda v: tf.reduce_sum(tf.nn.dropout(v.x, 1e-9, seed=6) ** 3),
)


# --- random_normal, random_uniform ---------------------------------------------------------------
spec(
    "random_normal_mean_gradient",
    {"m": [0.5, -1.0, 2.0], "w": [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]},
    {"f": "random_normal([2, 3], mean=m, stddev=0, seed=3) * w"},
    lambda v: tf.random.normal([2, 3], mean=v.m, stddev=0.0, dtype=D, seed=3) * v.w,
    exact=True,
    note="stddev 0: the value is mean, the gradient to mean sums the broadcast rows",
)
spec(
    "random_normal_float32_broadcasts_mean",
    {"m": In([[1.0], [-2.0]], "float32")},
    {"f": "random_normal([3], m, 0, dtype='float32', seed=1) * m"},
    lambda v: tf.random.normal([3], v.m, 0.0, dtype=F, seed=1) * v.m,
    exact=True,
    note="a mean of shape (2, 1) broadcasts the (3,) draw to (2, 3)",
)
spec(
    "random_uniform_bounds_gradient",
    {"m": [0.5, -1.0, 2.0, 0.25]},
    {"f": "random_uniform([4], minval=m, maxval=m, seed=2) * m"},
    lambda v: tf.random.uniform([4], minval=v.m, maxval=v.m, dtype=D, seed=2) * v.m,
    note="minval == maxval: the value is m; the gradients through minval, draw * -g + g, "
    "and maxval, draw * g, add to g up to rounding",
)
spec(
    "random_uniform_float32_range",
    {"x": In([1.0, 2.0], "float32")},
    {
        "u": "random_uniform([2, 2], dtype='float32', seed=9)",
        "f": "where(logical_and(u >= 0, u < 1), x, 0 * x)",
    },
    lambda v: (lambda u: tf.where((u >= 0) & (u < 1), v.x, 0 * v.x))(
        tf.random.uniform([2, 2], dtype=F, seed=9)
    ),
    exact=True,
    note="float32 draws stay in [0, 1)",
)
