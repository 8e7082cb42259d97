"""Floor division and its remainder: floormod (also named mod) and floordiv.

TensorFlow's FloorMod and FloorDiv kernels on floats: floordiv is floor(x / y), floormod
is fmod(x, y) moved onto the divisor's side (the result has the divisor's sign). The
gradient of floormod is TensorFlow's _FloorModGrad (math_grad.py): g to x and
g * -floor_div(x, y) to y, the formula TensorFlow uses even where x / y is an integer
(where the remainder jumps). floordiv has no gradient.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from gradcli.core.ops import kink_facts
from gradcli.core.ops.elementwise import binary
from gradcli.core.ops.registry import CUT, Operator, register
from gradcli.core.ops.sym import each_at, number


# --- floordiv: floor(x / y), TensorFlow's FloorDiv on floats (no gradient) ----------------
def _floordiv(x, y):
    with np.errstate(all="ignore"):
        return np.floor(np.true_divide(x, y))


def _floordiv_scalar(x, y):
    if y == 0.0 or not (math.isfinite(x) and math.isfinite(y)):
        return float(_floordiv(np.float64(x), np.float64(y)))
    return float(math.floor(x / y)) if math.isfinite(x / y) else x / y


binary(
    "floordiv",
    _floordiv,
    _floordiv_scalar,
    (None, None),
    behavior=CUT,
    pole_input=1,
    overflows=True,
    pole=lambda x, y: y == 0,
    convention=kink_facts.floordiv,
    doc="floor(x / y), TensorFlow's FloorDiv (tf.math.floordiv)",
)


# --- floormod: x - y * floor(x / y), TensorFlow's FloorMod on floats -----------------------
def _floormod(x, y):
    with np.errstate(all="ignore"):
        trunc = np.fmod(x, y)
        moved = (trunc != 0) & ((y < 0) != (trunc < 0))
        return np.where(moved, trunc + y, trunc)[()]


def _floormod_scalar(x, y):
    if y == 0.0 or not (math.isfinite(x) and math.isfinite(y)):
        return float(_floormod(np.float64(x), np.float64(y)))
    trunc = math.fmod(x, y)
    return trunc + y if trunc != 0 and ((y < 0) != (trunc < 0)) else trunc


def _floormod_grad_y(b, n, g):
    # grad * negative(floor_div(x, y)), TensorFlow's _FloorModGrad
    x, y = n.inputs
    return b.mul(g, b.neg(b.floordiv(x, y)))


def _floormod_sympy(sp, xs, vs):
    # x - y * floor(x / y), with floor(x / y) the constant it is at the point
    return xs[0] - xs[1] * number(sp, _floordiv(np.float64(vs[0]), np.float64(vs[1])))


FLOORMOD = binary(
    "floormod",
    _floormod,
    _floormod_scalar,
    (lambda b, n, g: g, _floormod_grad_y),
    sympy=each_at(_floormod_sympy),
    pole_input=1,
    pole=lambda x, y: y == 0,
    convention=kink_facts.floormod,
    doc="x - y * floor(x / y) with the divisor's sign, TensorFlow's FloorMod (also named mod)",
    operator=Operator("%", 20),  # x % y, as TensorFlow's Tensor.__mod__; binds like * and /
)
register(
    replace(
        FLOORMOD,
        name="mod",
        doc="the floor-division remainder, the same op as floormod",
        operator=None,  # % reads as floormod
    )
)


# --- truncatemod: fmod(x, y), TensorFlow's TruncateMod on floats ------------------------------
# The C library's fmod, as TensorFlow's kernel: the remainder of the quotient truncated toward
# zero, with the dividend's sign (-0.0 where x is -0.0 or a negative multiple of y). TensorFlow
# registers no gradient for TruncateMod (tape.gradient raises LookupError); gradcli's is the
# gradient TensorFlow gives x - y * stop_gradient(truncatediv(x, y)), _FloorModGrad's formula
# with the quotient truncated: g to x and -g * trunc(x / y) to y.
def _truncatemod(x, y):
    with np.errstate(all="ignore"):
        return np.fmod(x, y)[()]


def _truncatemod_scalar(x, y):
    if y == 0.0 or not (math.isfinite(x) and math.isfinite(y)):
        return float(_truncatemod(np.float64(x), np.float64(y)))
    return math.fmod(x, y)


def _truncated_quotient(x, y):
    with np.errstate(all="ignore"):
        q = np.true_divide(x, y)
        return np.where(q < 0, np.ceil(q), np.floor(q))[()]


def _truncatemod_grad_y(b, n, g):
    # -(g * truncatediv(x, y)), truncatediv as trunc(x / y): ceil below 0, floor above
    x, y = n.inputs
    q = b.div(x, y)
    truncated = b.where(b.less(q, b.const(0.0, like=q)), b.ceil(q), b.floor(q))
    return b.mul(b.neg(g), truncated)


def _truncatemod_sympy(sp, xs, vs):
    # x - y * trunc(x / y), with trunc(x / y) the constant it is at the point
    q = _truncated_quotient(np.float64(vs[0]), np.float64(vs[1]))
    return xs[0] - xs[1] * number(sp, q)


binary(
    "truncatemod",
    _truncatemod,
    _truncatemod_scalar,
    (lambda b, n, g: g, _truncatemod_grad_y),
    sympy=each_at(_truncatemod_sympy),
    pole_input=1,
    pole=lambda x, y: y == 0,
    convention=kink_facts.truncatemod,
    doc="fmod(x, y): x - y * trunc(x / y), with the dividend's sign, TensorFlow's TruncateMod "
    "(tf.truncatemod)",
)
