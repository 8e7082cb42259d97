"""TensorFlow reference cases: layout ops that only move elements (squeeze, expand_dims,
reverse and its alias flip).

Operands are small multiples of 1/4 (dyadic), so every product is exact and TensorFlow
and gradcli agree bit for bit.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_cases import expr, hessian

_RNG = np.random.default_rng(2411)


def q(*shape):
    """Dyadic values (multiples of 1/4 in [-2, 2]), their own stream: other modules' stay put."""
    return (_RNG.integers(-8, 9, size=shape) / 4.0).tolist()


# --- squeeze --------------------------------------------------------------------------------
expr(
    "squeeze_all",
    "sum(squeeze(x) * w)",
    {"x": q(3, 1, 2, 1), "w": q(3, 2)},
    lambda v: tf.reduce_sum(tf.squeeze(v.x) * v.w),
    exact=True,
)
expr(
    "squeeze_axis",
    "sum(squeeze(x, axis=-1) * w)",
    {"x": q(3, 1, 2, 1), "w": q(3, 1, 2)},
    lambda v: tf.reduce_sum(tf.squeeze(v.x, axis=-1) * v.w),
    exact=True,
)
expr(
    "squeeze_axes",
    "sum(squeeze(x, [0, 2]) * w)",
    {"x": q(1, 3, 1), "w": q(3)},
    lambda v: tf.reduce_sum(tf.squeeze(v.x, axis=[0, 2]) * v.w),
    exact=True,
)
hessian(
    "h_squeeze",
    "sum(squeeze(x) ** 3 * [1, 2, 3])",
    {"x": q(1, 3, 1)},
    lambda v: tf.reduce_sum(tf.squeeze(v.x) ** 3 * tf.constant([1.0, 2.0, 3.0], tf.float64)),
    exact=True,
)

# --- expand_dims ------------------------------------------------------------------------------
expr(
    "expand_dims_front",
    "sum(expand_dims(x, 0) * w)",
    {"x": q(2, 3), "w": q(4, 2, 3)},
    lambda v: tf.reduce_sum(tf.expand_dims(v.x, 0) * v.w),
    exact=True,
)
expr(
    "expand_dims_negative",
    "sum(expand_dims(x, axis=-1) * w)",
    {"x": q(2, 3), "w": q(2, 3, 2)},
    lambda v: tf.reduce_sum(tf.expand_dims(v.x, axis=-1) * v.w),
    exact=True,
)
expr(
    "expand_dims_middle",
    "sum(expand_dims(x, -2) * w)",
    {"x": q(2, 3), "w": q(2, 1, 3)},
    lambda v: tf.reduce_sum(tf.expand_dims(v.x, -2) * v.w),
    exact=True,
)
hessian(
    "h_expand_dims",
    "sum(expand_dims(x, 1) * expand_dims(x, 0))",
    {"x": q(3)},
    lambda v: tf.reduce_sum(tf.expand_dims(v.x, 1) * tf.expand_dims(v.x, 0)),
    exact=True,
)

# --- reverse and its alias flip (tf.reverse takes a list of axes) ---------------------------
expr(
    "reverse_vector",
    "sum(reverse(x, 0) * w)",
    {"x": q(5), "w": q(5)},
    lambda v: tf.reduce_sum(tf.reverse(v.x, [0]) * v.w),
    exact=True,
)
expr(
    "reverse_axes",
    "sum(reverse(x, [0, -1]) * w)",
    {"x": q(2, 3, 4), "w": q(2, 3, 4)},
    lambda v: tf.reduce_sum(tf.reverse(v.x, [0, -1]) * v.w),
    exact=True,
)
expr(
    "reverse_none",
    "sum(reverse(x, []) * w)",
    {"x": q(2, 3), "w": q(2, 3)},
    lambda v: tf.reduce_sum(tf.reverse(v.x, []) * v.w),
    exact=True,
)
expr(
    "flip",
    "sum(flip(x, axis=[1]) * x * w)",
    {"x": q(2, 3), "w": q(2, 3)},
    lambda v: tf.reduce_sum(tf.reverse(v.x, axis=[1]) * v.x * v.w),
    exact=True,
)
hessian(
    "h_reverse",
    "sum(reverse(x, 0) * x ** 2)",
    {"x": q(4)},
    lambda v: tf.reduce_sum(tf.reverse(v.x, [0]) * v.x**2),
    exact=True,
)
