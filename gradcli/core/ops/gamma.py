"""The gamma family: lgamma, digamma and polygamma, with TensorFlow's gradient rules.

The forwards are in gamma_kernels.py (TensorFlow's CPU algorithms, bit for bit on glibc).
The rules are math_grad.py's, node for node: lgamma' = g * digamma(x), digamma' =
g * polygamma(1, x), and polygamma(a, x)' = polygamma(a + 1, x) * g to x and no gradient to
a (TensorFlow's _PolygammaGrad returns None for it), so Hessians go through the same ops.
Poles: lgamma is inf at 0, -1, -2, ... (its gradient there is digamma's nan), digamma is
nan there, polygamma(n, x) inf for odd n and nan for even n >= 2.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops import gamma_kernels as kernels
from gradcli.core.ops.elementwise import _x, _y, binary, unary
from gradcli.core.ops.infer import elementwise
from gradcli.core.ops.sym import each, each_at, nonfinite, number


def _at_pole(x) -> np.ndarray:
    """The poles of the gamma function: 0, -1, -2, ... (and -inf)."""
    x = np.asarray(x)
    return (x <= 0) & (np.floor(x) == x)


# --- SymPy: functions whose derivatives and values check can use ----------------------------
_SYMPY: dict = {}


def _functions(sp) -> dict:
    """lgamma (log|Γ|, real below 0, unlike SymPy's loggamma) and polygamma as SymPy
    functions that lambdify can evaluate (SymPy's polygamma has no numpy form): their
    derivatives are polygamma(n + 1, x), their values SymPy's own, to 30 digits."""
    if sp in _SYMPY:
        return _SYMPY[sp]
    from_sympy = sp.Float

    def lgamma_value(x):
        try:
            return float(sp.re(sp.loggamma(from_sympy(float(x), 30))))
        except (ValueError, TypeError, ZeroDivisionError):
            return math.inf  # a pole

    def polygamma_value(n, x):
        try:
            return float(sp.polygamma(int(n), from_sympy(float(x), 30)).evalf(30))
        except (ValueError, TypeError, ZeroDivisionError):
            return math.nan

    class lgamma(sp.Function):  # lowercase: SymPy prints the class name
        nargs = 1
        _imp_ = staticmethod(lgamma_value)

        def fdiff(self, argindex=1):
            return polygamma(sp.Integer(0), self.args[0])

    class polygamma(sp.Function):
        nargs = 2
        _imp_ = staticmethod(polygamma_value)

        def fdiff(self, argindex=2):
            if argindex != 2:  # the order is a constant (the translation freezes it)
                raise sp.core.function.ArgumentIndexError(self, argindex)
            n, x = self.args
            return polygamma(n + 1, x)

    _SYMPY[sp] = {"lgamma": lgamma, "polygamma": polygamma}
    return _SYMPY[sp]


def _polygamma_sympy(sp, xs, vs):
    # the order a is a constant at its value (no gradient flows to it, as in TensorFlow)
    a = float(vs[0])
    if not (a >= 0 and a == math.floor(a)):
        return nonfinite(sp, math.nan)
    return _functions(sp)["polygamma"](number(sp, a), xs[1])


# --- lgamma ------------------------------------------------------------------------------------
unary(
    "lgamma",
    kernels.lgamma,
    kernels.lgamma_scalar,
    lambda b, n, g: b.mul(g, b.digamma(_x(n))),
    sympy=each(lambda sp, x: _functions(sp)["lgamma"](x)),
    overflows=True,  # past 2.5e305 (lgamma(x) ~ x log x)
    pole=_at_pole,
    doc="tf.math.lgamma: log|Γ(x)|, inf at 0, -1, -2, ...; gradient g * digamma(x)",
)

# --- digamma -----------------------------------------------------------------------------------
unary(
    "digamma",
    kernels.digamma,
    None,
    lambda b, n, g: b.mul(g, b.polygamma(b.const(1.0, like=_x(n)), _x(n))),
    sympy=each(lambda sp, x: _functions(sp)["polygamma"](sp.Integer(0), x)),
    pole=_at_pole,
    doc="tf.math.digamma: Γ'(x) / Γ(x), nan at 0, -1, -2, ...; gradient g * polygamma(1, x)",
)


# --- polygamma(a, x) -------------------------------------------------------------------------
def _polygamma_grad_x(b, n, g):
    # TensorFlow's _PolygammaGrad: polygamma(a + 1, x) * g (summed over a's broadcast axes)
    a, x = _x(n), _y(n)
    return b.mul(b.polygamma(b.add(a, b.const(1.0, like=a)), x), g)


def _polygamma_at_point(node, args, raw):
    # finite differences: the order is held at its value (no gradient flows to it)
    return kernels.polygamma(raw[0], args[1])


binary(
    "polygamma",
    kernels.polygamma,
    None,
    (None, _polygamma_grad_x),
    infer=elementwise("polygamma", floats=True),
    accepts="float",
    cuts=lambda node, inputs: (0,),
    sympy=each_at(_polygamma_sympy),
    at_point=_polygamma_at_point,
    no_convention="smooth in x; the order is a whole-number constant no gradient reaches",
    overflows=True,  # n! / x^(n+1) at a tiny x, exp(lgamma(n + 1)) past n = 170
    pole=lambda a, x: _at_pole(x),
    pole_input=1,
    doc="tf.math.polygamma(a, x): the a-th derivative of digamma (nan unless a is a "
    "non-negative integer); gradient polygamma(a + 1, x) to x, none to a",
)
