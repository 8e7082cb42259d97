"""The conventions of the elementwise ops at their kinks, ties, jumps and domain edges.

Each detector below is an `Op.convention` (see ops/convention.py): the elements at the
point, TensorFlow's value there, the one-sided derivatives, and PyTorch's and JAX's
choices (PyTorch 2.13's are held to its values by tests/core/test_conventions.py; JAX's
come from its JVP rules: relu and relu6 select x > 0, abs selects x >= 0, lax.max and
lax.min give half to each side of a tie, jnp.clip is a maximum then a minimum).
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops.convention import Convention, elementwise
from gradcli.core.ops.convention import ConventionKind as K

# --- relu, abs, sign ------------------------------------------------------------------------
RELU = Convention(
    K.KINK,
    "relu's kink (input = 0)",
    "TensorFlow gives 0 (ReluGrad passes the gradient only where the output is > 0)",
    "PyTorch also gives 0",
    "JAX also gives 0",
)
relu = elementwise((RELU, (0,), lambda x: x == 0, lambda x: {0: (0.0, 1.0)}))

ABS = Convention(
    K.KINK,
    "abs's kink (input = 0)",
    "TensorFlow gives 0 (sign(0) = 0)",
    "PyTorch also gives 0",
    "JAX gives 1 (it takes the x >= 0 side)",
)
abs_ = elementwise((ABS, (0,), lambda x: x == 0, lambda x: {0: (-1.0, 1.0)}))

SIGN = Convention(
    K.STEP,
    "sign's jump (input = 0)",
    "TensorFlow gives 0 (sign's gradient is 0 everywhere)",
    "PyTorch also gives 0",
    "JAX also gives 0",
)
sign = elementwise((SIGN, (0,), lambda x: x == 0, lambda x: {0: (0.0, 0.0)}))


def _step(name: str, where: str, test):
    convention = Convention(
        K.STEP,
        f"{name}'s jump ({where})",
        f"TensorFlow gives no gradient through {name} (None: it is not differentiable)",
        "PyTorch gives 0",
        "JAX gives 0",
        pytorch_same=False,
    )
    return elementwise((convention, (0,), test, lambda x: {0: (0.0, 0.0)}))


floor = _step("floor", "an integer", lambda x: np.isfinite(x) & (x == np.floor(x)))
ceil = _step("ceil", "an integer", lambda x: np.isfinite(x) & (x == np.floor(x)))
# round is half to even: it jumps at every odd multiple of 0.5
round_ = _step("round", "a half-integer", lambda x: np.isfinite(x) & (x - np.floor(x) == 0.5))

# --- sqrt, pow --------------------------------------------------------------------------------
SQRT = Convention(
    K.BOUNDARY,
    "the edge of sqrt's domain (input = 0)",
    "TensorFlow gives inf (0.5 / sqrt(0)), the derivative from above",
    "PyTorch also gives inf",
    "JAX also gives inf",
)
sqrt = elementwise((SQRT, (0,), lambda x: x == 0, lambda x: {0: (None, np.inf)}))

POW_ZERO_EXPONENT = Convention(
    K.FORMULA,
    "pow's 0 ** 0 (base = 0, exponent = 0)",
    "TensorFlow gives nan (y * x ** (y - 1) = 0 * inf), though x ** 0 = 1 is constant",
    "PyTorch gives 0 (it tests for a zero exponent)",
    "JAX gives 0 (it tests for a zero exponent)",
    pytorch_same=False,
)
POW_BASE = Convention(
    K.BOUNDARY,
    "the edge of pow's domain (base = 0, exponent not a whole number >= 1)",
    "TensorFlow gives y * 0 ** (y - 1), the derivative from above (inf for 0 < y < 1)",
    "PyTorch also gives y * 0 ** (y - 1)",
    "JAX also gives y * 0 ** (y - 1)",
)
POW_EXPONENT = Convention(
    K.BOUNDARY,
    "pow of a negative base (x ** y is real only at whole y: no derivative in y)",
    "TensorFlow gives 0 to the exponent (it takes log(x) as 0 where x <= 0)",
    "PyTorch gives nan (log of a negative base)",
    "JAX gives nan (log of a negative base)",
    pytorch_same=False,
)


def _whole_at_least_one(y):
    return (y >= 1) & (y == np.floor(y))


def _pow_base_sides(x, y):
    with np.errstate(all="ignore"):
        above = np.where(y < 1, np.inf, np.where(y == 1, 1.0, 0.0))
    return {0: (None, above)}


pow_ = elementwise(
    (
        POW_ZERO_EXPONENT,
        (0,),
        lambda x, y: (x == 0) & (y == 0),
        lambda x, y: {0: (0.0, 0.0)},
    ),
    (
        POW_BASE,
        (0,),
        lambda x, y: (x == 0) & (y > 0) & ~_whole_at_least_one(y),
        _pow_base_sides,
    ),
    (POW_EXPONENT, (1,), lambda x, y: x < 0, lambda x, y: {1: (None, None)}),
)

# --- maximum, minimum, clip -------------------------------------------------------------------
MAXIMUM = Convention(
    K.TIE,
    "maximum's tie (x = y)",
    "TensorFlow gives the whole gradient to x, 0 to y (x >= y selects x)",
    "PyTorch splits it, 0.5 to each",
    "JAX splits it, 0.5 to each",
    pytorch_same=False,
)
MINIMUM = Convention(
    K.TIE,
    "minimum's tie (x = y)",
    "TensorFlow gives the whole gradient to x, 0 to y (x <= y selects x)",
    "PyTorch splits it, 0.5 to each",
    "JAX splits it, 0.5 to each",
    pytorch_same=False,
)
maximum = elementwise(
    (MAXIMUM, (0, 1), lambda x, y: x == y, lambda x, y: {0: (0.0, 1.0), 1: (0.0, 1.0)})
)
minimum = elementwise(
    (MINIMUM, (0, 1), lambda x, y: x == y, lambda x, y: {0: (1.0, 0.0), 1: (1.0, 0.0)})
)

CLIP = Convention(
    K.KINK,
    "clip's bound (x = a bound)",
    "TensorFlow gives the whole gradient to x, 0 to the bound",
    "PyTorch (clamp) also gives it to x",
    "JAX splits it, 0.5 to x and 0.5 to the bound",
)
clip = elementwise(
    (
        CLIP,
        (0, 1),
        lambda x, lo, hi: (x == lo) & (lo < hi),
        lambda x, lo, hi: {0: (0.0, 1.0), 1: (0.0, 1.0)},
    ),
    (
        CLIP,
        (0, 2),
        lambda x, lo, hi: (x == hi) & (lo < hi),
        lambda x, lo, hi: {0: (1.0, 0.0), 2: (1.0, 0.0)},
    ),
)

# --- activations ------------------------------------------------------------------------------
RELU6 = Convention(
    K.KINK,
    "relu6's kink (input = 0 or 6)",
    "TensorFlow gives 0 (Relu6Grad passes the gradient only where 0 < output < 6)",
    "PyTorch also gives 0",
    "JAX also gives 0",
)
relu6 = elementwise(
    (RELU6, (0,), lambda x: x == 0, lambda x: {0: (0.0, 1.0)}),
    (RELU6, (0,), lambda x: x == 6, lambda x: {0: (1.0, 0.0)}),
)
HARD_SIGMOID = Convention(
    K.KINK,
    "hard_sigmoid's kink (input = -3 or 3)",
    "TensorFlow gives 0 (relu6(x + 3) / 6 passes the gradient only inside)",
    "PyTorch also gives 0",
    "JAX also gives 0",
)
hard_sigmoid = elementwise(
    (HARD_SIGMOID, (0,), lambda x: x + 3 == 0, lambda x: {0: (0.0, 1.0 / 6.0)}),
    (HARD_SIGMOID, (0,), lambda x: x + 3 == 6, lambda x: {0: (1.0 / 6.0, 0.0)}),
)
LEAKY_RELU = Convention(
    K.KINK,
    "leaky_relu's kink (input = 0)",
    "TensorFlow gives alpha (LeakyReluGrad passes g only where x > 0)",
    "PyTorch also gives alpha",
    "JAX gives 1 (it takes the x >= 0 side)",
)


def leaky_relu(alpha_of):
    """leaky_relu's detector; alpha_of(node) is its alpha (no kink when it is 1)."""

    def detect(node, ins):
        alpha = alpha_of(node)
        if alpha == 1.0:
            return []
        return elementwise((LEAKY_RELU, (0,), lambda x: x == 0, lambda x: {0: (alpha, 1.0)}))(
            node, ins
        )

    return detect


def selu(scale: float, scale_alpha: float):
    """selu's detector: at 0 the one-sided derivatives are scale * alpha and scale."""
    convention = Convention(
        K.KINK,
        "selu's kink (input = 0)",
        "TensorFlow gives scale (SeluGrad takes the y >= 0 side)",
        "PyTorch gives scale * alpha (the x <= 0 side)",
        "JAX gives scale * alpha (the x <= 0 side)",
        pytorch_same=False,
    )
    return elementwise((convention, (0,), lambda x: x == 0, lambda x: {0: (scale_alpha, scale)}))


# --- floordiv, floormod, truncatemod: jumps where x / y is a whole number ---------------------
def _whole_quotient(x, y, nonzero: bool = False):
    """Where x / y is a finite whole number (nonzero: and not 0, where fmod is continuous)."""
    with np.errstate(all="ignore"):
        q = np.true_divide(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        whole = np.isfinite(q) & (q == np.floor(q)) & (np.asarray(y) != 0)
        return whole & (q != 0) if nonzero else whole


FLOORDIV = Convention(
    K.STEP,
    "floordiv's jump (x / y a whole number)",
    "TensorFlow gives no gradient through floordiv (None: it is not differentiable)",
    "PyTorch has no derivative for floor_divide (its backward raises)",
    "JAX gives 0",
    pytorch_same=False,
)
floordiv = elementwise(
    (FLOORDIV, (0, 1), _whole_quotient, lambda x, y: {0: (0.0, 0.0), 1: (0.0, 0.0)})
)
FLOORMOD = Convention(
    K.STEP,
    "floormod's jump (x / y a whole number: the remainder jumps by y)",
    "TensorFlow gives 1 to x and -floor(x / y) to y (its formula, as on either side)",
    "PyTorch (remainder) also gives 1 and -floor(x / y)",
    "JAX (remainder) also gives 1 and -floor(x / y)",
)
floormod = elementwise(
    (FLOORMOD, (0, 1), _whole_quotient, lambda x, y: {0: (1.0, 1.0), 1: (None, None)})
)
TRUNCATEMOD = Convention(
    K.STEP,
    "truncatemod's jump (x / y a nonzero whole number)",
    "TensorFlow registers no gradient for TruncateMod; gradcli gives 1 to x and "
    "-trunc(x / y) to y (floormod's formula, truncated)",
    "PyTorch (fmod) gives 1 and -trunc(x / y)",
    "JAX (fmod) gives 1 and -trunc(x / y)",
)
truncatemod = elementwise(
    (
        TRUNCATEMOD,
        (0, 1),
        lambda x, y: _whole_quotient(x, y, nonzero=True),
        lambda x, y: {0: (1.0, 1.0), 1: (None, None)},
    )
)
