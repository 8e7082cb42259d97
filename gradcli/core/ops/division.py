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
