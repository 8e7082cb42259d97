"""Special elementwise functions: erf, inverse trig and hyperbolic functions, logarithms to
other bases, reciprocals, atan2, xlogy/xdivy (lgamma, digamma and polygamma: gamma.py).

One block per op, forward beside its gradient rules, which follow TensorFlow's formulas
(math_grad.py: _ErfGrad, _AsinGrad, _Atan2Grad, _XLogyGrad, ...) node for node, so that
gradients round as TensorFlow's do and second derivatives go through graph-op rules.
log2, log10 and cbrt are not TensorFlow ops: they follow tf.experimental.numpy's
definitions (log(x) / log(2), and where(x < 0, -|x|**(1/3), |x|**(1/3))).
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops.elementwise import _x, _y, binary, unary
from gradcli.core.ops.infer import elementwise
from gradcli.core.ops.sym import each, each_at


def _vectorize(fn, at_error=math.nan):
    """A numpy forward from a Python-float function (libm's erf, lgamma: numpy has none)."""

    def safe(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return at_error

    ufunc = np.frompyfunc(safe, 1, 1)

    def forward(x):
        x = np.asarray(x)
        return np.asarray(ufunc(x)).astype(x.dtype)[()]  # 0-d: ufunc gives a Python float

    return forward, safe


def _one(b, n):
    return b.const(1.0, like=_x(n))


# --- erf, erfc ---------------------------------------------------------------------------
_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)


def _erf_rule(factor):
    # (g * (+-2/sqrt(pi))) * exp(-square(x)), TensorFlow's _ErfGrad and _ErfcGrad
    def rule(b, n, g):
        x = _x(n)
        return b.mul(b.mul(g, b.const(factor, like=x)), b.exp(b.neg(b.square(x))))

    return rule


_erf, _erf_scalar = _vectorize(math.erf)
_erfc, _erfc_scalar = _vectorize(math.erfc)
unary("erf", _erf, _erf_scalar, _erf_rule(_TWO_OVER_ROOT_PI), sympy=each(lambda sp, x: sp.erf(x)))
unary(
    "erfc",
    _erfc,
    _erfc_scalar,
    _erf_rule(-_TWO_OVER_ROOT_PI),
    sympy=each(lambda sp, x: sp.erfc(x)),
)


# --- asin, acos, atan --------------------------------------------------------------------
def _inv_sqrt_one_minus_square(b, n):
    # reciprocal(sqrt(1 - square(x))): inf at x = +-1, nan outside [-1, 1]
    return b.reciprocal(b.sqrt(b.sub(_one(b, n), b.square(_x(n)))))


unary(
    "asin",
    np.arcsin,
    math.asin,
    lambda b, n, g: b.mul(g, _inv_sqrt_one_minus_square(b, n)),
    sympy=each(lambda sp, x: sp.asin(x)),
)
unary(
    "acos",
    np.arccos,
    math.acos,
    lambda b, n, g: b.mul(b.neg(g), _inv_sqrt_one_minus_square(b, n)),
    sympy=each(lambda sp, x: sp.acos(x)),
)
unary(
    "atan",
    np.arctan,
    math.atan,
    lambda b, n, g: b.mul(g, b.reciprocal(b.add(_one(b, n), b.square(_x(n))))),
    sympy=each(lambda sp, x: sp.atan(x)),
)

# --- sinh, cosh, asinh, acosh, atanh -------------------------------------------------------
unary(
    "sinh",
    np.sinh,
    math.sinh,
    lambda b, n, g: b.mul(g, b.cosh(_x(n))),
    sympy=each(lambda sp, x: sp.sinh(x)),
    overflows=True,
)
unary(
    "cosh",
    np.cosh,
    math.cosh,
    lambda b, n, g: b.mul(g, b.sinh(_x(n))),
    sympy=each(lambda sp, x: sp.cosh(x)),
    overflows=True,
)
# asinh' and acosh' divide by cosh and sinh of the op's output (TensorFlow's rules)
unary(
    "asinh",
    np.arcsinh,
    math.asinh,
    lambda b, n, g: b.div(g, b.cosh(n.id)),
    sympy=each(lambda sp, x: sp.asinh(x)),
)
unary(
    "acosh",
    np.arccosh,
    math.acosh,
    lambda b, n, g: b.div(g, b.sinh(n.id)),
    sympy=each(lambda sp, x: sp.acosh(x)),
)
unary(
    "atanh",
    np.arctanh,
    math.atanh,
    lambda b, n, g: b.mul(g, b.reciprocal(b.sub(_one(b, n), b.square(_x(n))))),
    sympy=each(lambda sp, x: sp.atanh(x)),
)

# --- expm1, log2, log10 ------------------------------------------------------------------
unary(
    "expm1",
    np.expm1,
    math.expm1,
    lambda b, n, g: b.mul(g, b.exp(_x(n))),
    sympy=each(lambda sp, x: sp.exp(x) - 1),
    overflows=True,
)


def _log_base(name, base):
    ln = math.log(base)  # tf.experimental.numpy: log(x) / np.log(base)

    def forward(x):
        x = np.asarray(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.log(x) / x.dtype.type(ln))[()]

    def rule(b, n, g):
        # the gradient of div(log(x), ln) then of log: (g / ln) * (1 / x)
        x = _x(n)
        return b.mul(b.div(g, b.const(ln, like=x)), b.div(_one(b, n), x))

    unary(
        name,
        forward,
        lambda x: math.log(x) / ln,
        rule,
        sympy=each(lambda sp, x: sp.log(x) / sp.log(base)),
        doc=f"log(x) / log({base}), as tf.experimental.numpy.{name}",
    )


_log_base("log2", 2)
_log_base("log10", 10)


# --- reciprocal, rsqrt -------------------------------------------------------------------
def _reciprocal(x):
    x = np.asarray(x)
    with np.errstate(divide="ignore"):
        return (x.dtype.type(1.0) / x)[()] if x.dtype.kind == "f" else 1.0 / x


unary(
    "reciprocal",
    _reciprocal,
    lambda x: 1.0 / x,
    lambda b, n, g: b.reciprocal_grad(n.id, g),
    sympy=each(lambda sp, x: 1 / x),
    pole=lambda x: x == 0,
)


def _rsqrt(x):
    x = np.asarray(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x.dtype.type(1.0) / np.sqrt(x))[()]


unary(
    "rsqrt",
    _rsqrt,
    lambda x: 1.0 / math.sqrt(x),
    lambda b, n, g: b.rsqrt_grad(n.id, g),
    sympy=each(lambda sp, x: 1 / sp.sqrt(x)),
)


# reciprocal_grad(y, dy) = -(y * y) * dy, and +0 where dy == 0 (TensorFlow's ReciprocalGrad
# kernel: an infinite y meets a zero gradient without a nan)
def _reciprocal_grad(y, dy):
    with np.errstate(all="ignore"):
        out = np.negative(np.multiply(y, y)) * dy
    return np.where(np.equal(dy, 0), np.zeros((), out.dtype), out)[()]


def _reciprocal_grad_grad_y(b, n, g):
    # TensorFlow's _ReciprocalGradGrad: (g * -2) * dy * y
    y, dy = n.inputs
    return b.mul(b.mul(b.mul(g, b.const(-2.0, like=y)), dy), y)


binary(
    "reciprocal_grad",
    _reciprocal_grad,
    lambda y, dy: 0.0 if dy == 0.0 else -(y * y) * dy,
    (_reciprocal_grad_grad_y, lambda b, n, g: b.reciprocal_grad(_x(n), g)),
    public=False,
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[1] == 0 else -(xs[0] ** 2) * xs[1]),
    overflows=True,
)


# rsqrt_grad(y, dy) = -0.5 * (dy * y) * (y * y), and +0 where dy or y * y is 0 (TensorFlow's
# RsqrtGrad kernel multiplies without nan: 0 * inf is 0 there)
def _rsqrt_grad(y, dy):
    with np.errstate(all="ignore"):
        yy = np.multiply(y, y)
        out = -0.5 * np.multiply(dy, y) * yy
    zero = np.equal(dy, 0) | np.equal(yy, 0)
    return np.where(zero, np.zeros((), out.dtype), out)[()]


def _rsqrt_grad_scalar(y, dy):
    yy = y * y
    return 0.0 if dy == 0.0 or yy == 0.0 else -0.5 * (dy * y) * yy


def _rsqrt_grad_grad_y(b, n, g):
    # TensorFlow's _RsqrtGradGrad: ((-1.5 * g) * dy) * square(y)
    y, dy = n.inputs
    return b.mul(b.mul(b.mul(b.const(-1.5, like=y), g), dy), b.square(y))


binary(
    "rsqrt_grad",
    _rsqrt_grad,
    _rsqrt_grad_scalar,
    (_rsqrt_grad_grad_y, lambda b, n, g: b.rsqrt_grad(_x(n), g)),
    public=False,
    sympy=each_at(
        lambda sp, xs, vs: (
            sp.Integer(0) if vs[1] == 0 or vs[0] * vs[0] == 0 else -(xs[1] * xs[0] ** 3) / 2
        )
    ),
    overflows=True,
)


# --- atan2(y, x) ---------------------------------------------------------------------------
def _atan2_grad_inv(b, n, g):
    y, x = n.inputs
    return b.div(g, b.add(b.square(y), b.square(x)))


binary(
    "atan2",
    np.arctan2,
    math.atan2,
    (
        lambda b, n, g: b.mul(_y(n), _atan2_grad_inv(b, n, g)),
        lambda b, n, g: b.mul(b.neg(_x(n)), _atan2_grad_inv(b, n, g)),
    ),
    infer=elementwise("atan2", floats=True),
    sympy=each(lambda sp, y, x: sp.atan2(y, x)),
    accepts="float",
    doc="atan2(y, x): the angle of the point (x, y); its gradient at (0, 0) is nan",
)


# --- cbrt ----------------------------------------------------------------------------------
_THIRD = 1.0 / 3


def _cbrt(x):
    x = np.asarray(x)
    rt = np.power(np.abs(x), x.dtype.type(_THIRD))
    return np.where(x < 0, -rt, rt)[()]


def _cbrt_scalar(x):
    rt = math.pow(abs(x), _THIRD)
    return -rt if x < 0 else rt


def _cbrt_grad(b, n, g):
    # tf.experimental.numpy's where(x < 0, -rt, rt), rt = abs(x) ** (1/3), differentiated as
    # TensorFlow does: where, then pow's (g * y) * x^(y - 1), then abs' = sign. At 0 this is
    # inf * sign(0) = nan.
    x = _x(n)
    zero, third = b.const(0.0, like=x), b.const(_THIRD, like=x)
    negative = b.less(x, zero)
    g_rt = b.add(b.where(negative, zero, g), b.neg(b.where(negative, g, zero)))
    d_rt = b.mul(b.mul(g_rt, third), b.pow(b.abs(x), b.sub(third, _one(b, n))))
    return b.mul(d_rt, b.sign(x))


def _cbrt_sympy(sp, xs, vs):
    (x,), (v,) = xs, vs
    return -((-x) ** sp.Rational(1, 3)) if v < 0 else x ** sp.Rational(1, 3)


unary("cbrt", _cbrt, _cbrt_scalar, _cbrt_grad, sympy=each_at(_cbrt_sympy))


# --- xlogy, xdivy: 0 where x == 0, and so is the gradient to both inputs ------------------
def _x_is_nonzero(b, n):
    # cast(not_equal(x, 0), dtype) as a where (the same values)
    x = _x(n)
    return b.where(b.not_equal(x, b.const(0.0, like=x)), _one(b, n), b.const(0.0, like=x))


def _xlogy(x, y):
    with np.errstate(all="ignore"):
        out = np.multiply(x, np.log(y))
    return np.where(np.equal(x, 0), np.zeros((), out.dtype), out)[()]


def _xlogy_scalar(x, y):
    if x == 0.0:
        return 0.0
    return x * math.log(y)


# at x = 0 the value is 0 for every y: the 0 TensorFlow gives to y there is the derivative
_X_ZERO_SMOOTH = "at x = 0 the value is 0 for every y, so 0 is the derivative in y"


def _x_zero_at_point(forward):
    # finite differences: where x is 0 at the point, the op is the constant 0 (TensorFlow's
    # gradient to both inputs is 0 there)
    def at_point(node, args, raw):
        out = np.asarray(forward(*args))
        return np.where(np.equal(raw[0], 0), np.zeros((), out.dtype), out)

    return at_point


binary(
    "xlogy",
    _xlogy,
    _xlogy_scalar,
    (
        lambda b, n, g: b.mul(b.xlogy(_x_is_nonzero(b, n), _y(n)), g),
        lambda b, n, g: b.mul(b.xdivy(_x(n), _y(n)), g),
    ),
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[0] == 0 else xs[0] * sp.log(xs[1])),
    at_point=_x_zero_at_point(_xlogy),
    no_convention=_X_ZERO_SMOOTH,
    infer=elementwise("xlogy", floats=True),
    accepts="float",
    overflows=True,
    pole=lambda x, y: (y == 0) & (x != 0),
    pole_input=1,
    doc="x * log(y), and 0 where x == 0 (even where y is 0 or nan)",
)


def _xdivy(x, y):
    with np.errstate(all="ignore"):
        out = np.true_divide(x, y)
    return np.where(np.equal(x, 0), np.zeros((), out.dtype), out)[()]


def _xdivy_scalar(x, y):
    return 0.0 if x == 0.0 else x / y


binary(
    "xdivy",
    _xdivy,
    _xdivy_scalar,
    (
        lambda b, n, g: b.mul(b.xdivy(_x_is_nonzero(b, n), _y(n)), g),
        lambda b, n, g: b.mul(b.xdivy(b.neg(_x(n)), b.pow(_y(n), b.const(2.0, like=_y(n)))), g),
    ),
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[0] == 0 else xs[0] / xs[1]),
    at_point=_x_zero_at_point(_xdivy),
    no_convention=_X_ZERO_SMOOTH,
    infer=elementwise("xdivy", floats=True),
    accepts="float",
    overflows=True,
    pole=lambda x, y: (y == 0) & (x != 0),
    pole_input=1,
    doc="x / y, and 0 where x == 0 (even where y is 0 or nan)",
)


# --- xlog1py: x * log1p(y), 0 where x == 0 (tf.math.xlog1py) ------------------------------
def _xlog1py(x, y):
    with np.errstate(all="ignore"):
        out = np.multiply(x, np.log1p(y))
    return np.where(np.equal(x, 0), np.zeros((), out.dtype), out)[()]


def _xlog1py_scalar(x, y):
    if x == 0.0:
        return 0.0
    return x * math.log1p(y)


def _xlog1py_grad_y(b, n, g):
    # TensorFlow's _XLog1pyGrad: xdivy(x, y + 1) * g
    y = _y(n)
    return b.mul(b.xdivy(_x(n), b.add(y, b.const(1.0, like=y))), g)


binary(
    "xlog1py",
    _xlog1py,
    _xlog1py_scalar,
    (lambda b, n, g: b.mul(b.xlog1py(_x_is_nonzero(b, n), _y(n)), g), _xlog1py_grad_y),
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[0] == 0 else xs[0] * sp.log(1 + xs[1])),
    at_point=_x_zero_at_point(_xlog1py),
    no_convention=_X_ZERO_SMOOTH,
    infer=elementwise("xlog1py", floats=True),
    accepts="float",
    overflows=True,
    pole=lambda x, y: (y == -1) & (x != 0),
    pole_input=1,
    doc="x * log1p(y), and 0 where x == 0 (even where y is -1 or nan), tf.math.xlog1py",
)


# --- erfinv: the inverse of erf, TensorFlow's kernel ndtri(0.5 * x + 0.5) * sqrt(1/2) -------
# Eigen's generic_ndtri (Cephes' ndtri): a rational approximation around the centre, and two
# in sqrt(-2 log b) for the tails, in the tensor's dtype, node for node
_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
             1.39312609387279679503e1, -1.23916583867381258016e0)  # fmt: skip
_NDTRI_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
             1.59056225126211695515e1, -1.18331621121330003142e0)  # fmt: skip
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
             4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
             -1.40256079171354495875e-1, -3.50424626827848203418e-2,
             -8.57456785154685413611e-4)  # fmt: skip
_NDTRI_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
             -3.80806407691578277194e-2, -9.33259480895457427372e-4)  # fmt: skip
_NDTRI_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
             1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
             3.01581553508235416007e-4, 2.65806974686737550832e-6,
             6.23974539184983293730e-9)  # fmt: skip
_NDTRI_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
             2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
             2.89247864745380683936e-6, 6.79019408009981274425e-9)  # fmt: skip


def _polevl(x, coeffs):
    t = x.dtype.type
    acc = np.full_like(x, t(coeffs[0]))
    for c in coeffs[1:]:
        acc = acc * x + t(c)
    return acc


def _ndtri(a):
    t = a.dtype.type
    exp_neg_two = t(0.13533528323661269189)
    flip = a <= t(1) - exp_neg_two
    b = np.where(flip, a, t(1) - a)
    # the centre: b in (exp(-2), 1 - exp(-2)]
    c = b - t(0.5)
    c2 = c * c
    centre = (c * (c2 * (_polevl(c2, _NDTRI_P0) / _polevl(c2, _NDTRI_Q0))) + c) * t(
        2.50662827463100050242e0
    )
    # the tails: z = sqrt(-2 log b) in [2, 8) or [8, 64)
    x = np.sqrt(t(-2) * np.log(b))
    x0 = x - np.log(x) / x
    z = t(1) / x
    ratio = np.where(
        x < t(8),
        _polevl(z, _NDTRI_P1) / _polevl(z, _NDTRI_Q1),
        _polevl(z, _NDTRI_P2) / _polevl(z, _NDTRI_Q2),
    )
    tail = x0 - z * ratio
    tail = np.where(flip, -tail, tail)
    out = np.where(exp_neg_two < b, centre, tail)
    return np.where(a == 0, t(-np.inf), np.where(a == 1, t(np.inf), out))


def _erfinv(x):
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(all="ignore"):
        return (_ndtri(t(0.5) * x + t(0.5)) * t(math.sqrt(0.5)))[()]


def _erfinv_grad(b, n, g):
    # TensorFlow's _ErfinvGrad: (g * sqrt(pi) / 2) * exp(square(y)), y the op's output
    y = n.id
    return b.mul(b.mul(g, b.const(math.sqrt(math.pi) / 2, like=y)), b.exp(b.square(y)))


_ERFINV_SYMPY: dict = {}


def _erfinv_function(sp):
    """erfinv as a SymPy function lambdify can evaluate (numpy has none): its value SymPy's
    own to 30 digits, its derivative sqrt(pi) / 2 * exp(erfinv(x)^2), SymPy's."""
    if sp not in _ERFINV_SYMPY:

        def value(x):
            try:
                return float(sp.erfinv(sp.Float(float(x), 30)).evalf(30))
            except (ValueError, TypeError):
                return math.nan

        class erfinv(sp.Function):  # lowercase: SymPy prints the class name
            nargs = 1
            _imp_ = staticmethod(value)

            def fdiff(self, argindex=1):
                return sp.sqrt(sp.pi) / 2 * sp.exp(self**2)

        _ERFINV_SYMPY[sp] = erfinv
    return _ERFINV_SYMPY[sp]


unary(
    "erfinv",
    _erfinv,
    None,
    _erfinv_grad,
    sympy=each(lambda sp, x: _erfinv_function(sp)(x)),
    doc="the inverse of erf on [-1, 1] (+-inf at +-1, nan outside), tf.math.erfinv",
)
