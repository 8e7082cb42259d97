"""TensorFlow reference cases: conv3d, max_pool3d and avg_pool3d (NDHWC).

TensorFlow's CPU Conv3D takes strides as 5 entries (gradcli also takes 1 or 3) and refuses
NCDHW and dilations (the NCDHW reference is NDHWC between transposes). Its 3-D pools have
CPU kernels for float32 and NDHWC only, so the pool cases are float32 (NCDHW between
transposes). max_pool3d's gradient is
MaxPool3DGrad's: every element within 1e-5 of its window's maximum receives the whole
gradient (ties: each of them), which the `ties` cases pin; its second derivative goes
through MaxPool3DGradGrad (gg at the first element equal to the maximum).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tf_cases import In, hessian, spec

_RNG = np.random.default_rng(333)
F = tf.float32


def q(*shape):
    """Dyadic values (multiples of 1/4 in [-2, 2]): every sum exact in any order."""
    return (_RNG.integers(-8, 9, size=shape) / 4.0).tolist()


def ties(*shape):
    """Few distinct values, so windows tie often."""
    return (_RNG.integers(0, 3, size=shape) / 2.0).tolist()


def ncdhw(t):
    return tf.transpose(t, [0, 4, 1, 2, 3])


def ndhwc(t):
    return tf.transpose(t, [0, 2, 3, 4, 1])


def weighted(id, call, tf_call, at, out_shape, *, dtype="float64", note=""):
    """sum(call * w) with a weight per output element."""
    inputs = {k: In(v, dtype) for k, v in at.items()}
    spec(
        id,
        {**inputs, "w": In(q(*out_shape), dtype, False)},
        {"f": f"sum({call} * w)"},
        lambda v: tf.reduce_sum(tf_call(v) * v.w),
        wrt=list(at),
        note=note,
    )


# --- conv3d -----------------------------------------------------------------------------------
weighted(
    "conv3d_valid",
    "conv3d(x, k, 1, 'VALID')",
    lambda v: tf.nn.conv3d(v.x, v.k, [1, 1, 1, 1, 1], "VALID"),
    {"x": q(2, 4, 3, 4, 2), "k": q(2, 2, 3, 2, 3)},
    (2, 3, 2, 2, 3),
)
weighted(
    "conv3d_same_strided",
    "conv3d(x, k, [1, 2, 1, 2, 1], 'SAME')",
    lambda v: tf.nn.conv3d(v.x, v.k, [1, 2, 1, 2, 1], "SAME"),
    {"x": q(1, 5, 3, 4, 2), "k": q(3, 2, 2, 2, 2)},
    (1, 3, 3, 2, 2),
    note="strides along depth and width; SAME pads unevenly",
)
weighted(
    "conv3d_strides_skip",
    "conv3d(x, k, [3, 1, 2], 'VALID')",
    lambda v: tf.nn.conv3d(v.x, v.k, [1, 3, 1, 2, 1], "VALID"),
    {"x": q(1, 5, 2, 5, 1), "k": q(1, 2, 2, 1, 2)},
    (1, 2, 1, 2, 2),
    note="strides leave planes no window reads: their gradient is 0",
)
weighted(
    "conv3d_ncdhw",
    "conv3d(x, k, 1, 'SAME', 'NCDHW')",
    lambda v: ncdhw(tf.nn.conv3d(ndhwc(v.x), v.k, [1, 1, 1, 1, 1], "SAME")),
    {"x": q(1, 2, 3, 3, 2), "k": q(2, 2, 1, 2, 2)},
    (1, 2, 3, 3, 2),
    note="TensorFlow's CPU refuses NCDHW: the reference is NDHWC between transposes",
)
weighted(
    "conv3d_float32",
    "conv3d(x, k, 1, 'SAME')",
    lambda v: tf.nn.conv3d(v.x, v.k, [1, 1, 1, 1, 1], "SAME"),
    {"x": q(1, 3, 3, 3, 2), "k": q(2, 2, 2, 2, 2)},
    (1, 3, 3, 3, 2),
    dtype="float32",
)
hessian(
    "conv3d_hessian",
    "sum(conv3d(x, k, 1, 'VALID') ** 2)",
    {"x": q(1, 3, 2, 2, 1), "k": q(2, 1, 2, 1, 2)},
    lambda v: tf.reduce_sum(tf.nn.conv3d(v.x, v.k, [1, 1, 1, 1, 1], "VALID") ** 2),
)


# --- pools (float32) ----------------------------------------------------------------------------
weighted(
    "max_pool3d_ties",
    "max_pool3d(x, 2, 2, 'VALID')",
    lambda v: tf.nn.max_pool3d(v.x, 2, 2, "VALID"),
    {"x": ties(2, 4, 2, 4, 2)},
    (2, 2, 1, 2, 2),
    dtype="float32",
    note="tied maxima: every tied element gets the whole gradient",
)
weighted(
    "max_pool3d_same_overlap",
    "max_pool3d(x, [2, 3, 2], 1, 'SAME')",
    lambda v: tf.nn.max_pool3d(v.x, [2, 3, 2], 1, "SAME"),
    {"x": ties(1, 3, 3, 2, 1)},
    (1, 3, 3, 2, 1),
    dtype="float32",
    note="overlapping windows add their gradients (in output order)",
)
weighted(
    "max_pool3d_near_ties",
    "max_pool3d(x, 2, 2, 'VALID')",
    lambda v: tf.nn.max_pool3d(v.x, 2, 2, "VALID"),
    {"x": [[[[[1.0], [5.0]], [[4.999992], [2.0]]], [[[0.0], [4.99998]], [[3.0], [4.0]]]]]},
    (1, 1, 1, 1, 1),
    dtype="float32",
    note="4.999992 is within 1e-5 of 5 (gets the gradient), 4.99998 is not",
)
weighted(
    "max_pool3d_nonfinite",
    "max_pool3d(x, [1, 2, 2], [1, 2, 2], 'VALID')",
    lambda v: tf.nn.max_pool3d(v.x, [1, 2, 2], [1, 2, 2], "VALID"),
    {
        "x": [
            [
                [[[float("nan")], [1.0]], [[2.0], [0.5]]],
                [[[float("-inf")], [float("-inf")]], [[float("-inf")], [float("-inf")]]],
            ]
        ]
    },
    (1, 2, 1, 1, 1),
    dtype="float32",
    note="NaN never wins; an all -inf window gives the lowest float and no gradient",
)
weighted(
    "max_pool3d_ncdhw",
    "max_pool3d(x, 2, 1, 'VALID', 'NCDHW')",
    lambda v: ncdhw(tf.nn.max_pool3d(ndhwc(v.x), 2, 1, "VALID")),
    {"x": q(1, 2, 3, 2, 3)},
    (1, 2, 2, 1, 2),
    dtype="float32",
    note="TensorFlow's CPU refuses NCDHW: the reference is NDHWC between transposes",
)
weighted(
    "avg_pool3d_same",
    "avg_pool3d(x, 2, 1, 'SAME')",
    lambda v: tf.nn.avg_pool3d(v.x, 2, 1, "SAME"),
    {"x": q(1, 3, 2, 3, 2)},
    (1, 3, 2, 3, 2),
    dtype="float32",
    note="edge windows average fewer elements",
)
weighted(
    "avg_pool3d_valid_strided",
    "avg_pool3d(x, [2, 1, 3], [1, 1, 2], 'VALID')",
    lambda v: tf.nn.avg_pool3d(v.x, [2, 1, 3], [1, 1, 2], "VALID"),
    {"x": q(2, 3, 2, 5, 1)},
    (2, 2, 2, 2, 1),
    dtype="float32",
)
hessian(
    "max_pool3d_hessian",
    "sum(max_pool3d(cast(x, 'float32'), 2, 1, 'VALID') ** 2)",
    {
        "x": [
            [
                [[[1.0], [5.0], [2.0]], [[5.0], [2.0], [3.0]]],
                [[[0.0], [1.0], [4.0]], [[3.0], [4.0], [6.0]]],
            ]
        ]
    },
    lambda v: tf.reduce_sum(tf.nn.max_pool3d(tf.cast(v.x, F), 2, 1, "VALID") ** 2),
    note="MaxPool3DGrad spreads to both tied 5s; its own gradient, MaxPool3DGradGrad, picks "
    "the first of them",
)
hessian(
    "avg_pool3d_hessian",
    "sum(avg_pool3d(cast(x, 'float32'), 2, 1, 'SAME') ** 2)",
    {"x": q(1, 2, 2, 2, 1)},
    lambda v: tf.reduce_sum(tf.nn.avg_pool3d(tf.cast(v.x, F), 2, 1, "SAME") ** 2),
)
