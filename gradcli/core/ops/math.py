"""Elementwise ops: one block per op, forward beside its gradient rules (TensorFlow's formulas).

A rule is rule(b, node, g) -> the gradient for one input, built with graph ops through
the GradBuilder b; node.inputs are input ids and node.id is the op's own output.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from gradcli.core.ops.infer import elementwise, float_unary, numeric_unary
from gradcli.core.ops.registry import CUT, KINK, MASK, SMOOTH, ZERO, ZERO_GRAD, Op, register
from gradcli.core.ops.sym import each, each_at, number


def unary(
    name, forward, scalar, rule, *, infer=None, behavior=SMOOTH, sympy=None, doc="", accepts=None
):
    """Register a public elementwise op of one input (float inputs unless infer says otherwise)."""
    return register(
        Op(
            name,
            infer or float_unary(name),
            accepts=accepts or ("float" if infer is None else "number"),
            forward=forward,
            scalar=scalar,
            grads=(rule,),
            behavior=behavior,
            elementwise=True,
            public=True,
            arity=1,
            sympy=sympy,
            doc=doc,
        )
    )


def binary(
    name,
    forward,
    scalar,
    rules,
    *,
    infer=None,
    behavior=SMOOTH,
    public=True,
    sympy=None,
    doc="",
    accepts="number",
):
    """Register an elementwise op of two broadcast inputs."""
    return register(
        Op(
            name,
            infer or elementwise(name),
            accepts=accepts,
            forward=forward,
            scalar=scalar,
            grads=rules,
            behavior=behavior,
            elementwise=True,
            public=public,
            arity=2,
            sympy=sympy,
            doc=doc,
        )
    )


def _x(node):
    return node.inputs[0]


def _y(node):
    return node.inputs[1]


# --- neg ---------------------------------------------------------------------------------
unary(
    "neg",
    np.negative,
    operator.neg,
    lambda b, n, g: b.neg(g),
    infer=numeric_unary("neg"),
    sympy=each(lambda sp, x: -x),
)

# --- sin, cos, tan -----------------------------------------------------------------------
unary(
    "sin",
    np.sin,
    math.sin,
    lambda b, n, g: b.mul(g, b.cos(_x(n))),
    sympy=each(lambda sp, x: sp.sin(x)),
)
unary(
    "cos",
    np.cos,
    math.cos,
    lambda b, n, g: b.mul(b.neg(g), b.sin(_x(n))),
    sympy=each(lambda sp, x: sp.cos(x)),
)


def _tan_grad(b, n, g):
    # d tan = sec^2, computed as TF does: square(reciprocal(cos x))
    sec = b.div(b.const(1.0, like=_x(n)), b.cos(_x(n)))
    return b.mul(g, b.square(sec))


unary("tan", np.tan, math.tan, _tan_grad, sympy=each(lambda sp, x: sp.tan(x)))

# --- exp, log, log1p ---------------------------------------------------------------------
unary("exp", np.exp, math.exp, lambda b, n, g: b.mul(g, n.id), sympy=each(lambda sp, x: sp.exp(x)))


def _log_grad(b, n, g):
    # g * (1/x): at x = 0 this is inf, and 0 * inf = nan when g is 0 (the `where` trap)
    return b.mul(g, b.div(b.const(1.0, like=_x(n)), _x(n)))


unary("log", np.log, math.log, _log_grad, sympy=each(lambda sp, x: sp.log(x)))


def _log1p_grad(b, n, g):
    one = b.const(1.0, like=_x(n))
    return b.mul(g, b.div(one, b.add(one, _x(n))))


unary("log1p", np.log1p, math.log1p, _log1p_grad, sympy=each(lambda sp, x: sp.log(1 + x)))

# --- sqrt, square ------------------------------------------------------------------------
# sqrt_grad returns 0 where the upstream gradient is 0, so where(x > 0, sqrt(x), 0) has a
# finite gradient at 0 (TensorFlow's SqrtGrad kernel does the same).
unary(
    "sqrt",
    np.sqrt,
    math.sqrt,
    lambda b, n, g: b.sqrt_grad(n.id, g),
    sympy=each(lambda sp, x: sp.sqrt(x)),
)
unary(
    "square",
    np.square,
    lambda x: x * x,
    lambda b, n, g: b.mul(g, b.mul(_x(n), b.const(2.0, like=_x(n)))),
    infer=numeric_unary("square"),
    sympy=each(lambda sp, x: x**2),
)

# --- abs, sign ---------------------------------------------------------------------------
# abs'(0) = sign(0) = 0, as in TensorFlow; sign has a zero (but connected) gradient.


def _abs_sympy(sp, xs, vs):
    # the side taken at the point: x or -x, and the constant 0 at the kink (abs'(0) = 0)
    (x,), (v,) = xs, vs
    if v > 0:
        return x
    if v < 0:
        return -x
    return sp.Integer(0) if v == 0 else sp.Abs(x)


unary(
    "abs",
    np.abs,
    abs,
    lambda b, n, g: b.mul(g, b.sign(_x(n))),
    infer=numeric_unary("abs"),
    behavior=KINK,
    sympy=each_at(_abs_sympy),
)
unary(
    "sign",
    np.sign,
    lambda x: float(np.sign(x)),
    lambda b, n, g: ZERO_GRAD,
    infer=numeric_unary("sign"),
    behavior=ZERO,
)

# --- tanh, sigmoid, relu, softplus -------------------------------------------------------
unary(
    "tanh",
    np.tanh,
    math.tanh,
    lambda b, n, g: b.tanh_grad(n.id, g),
    sympy=each(lambda sp, x: sp.tanh(x)),
)


def _sigmoid(x):
    # TensorFlow's (Eigen's) float64 formula exp(x) / (1 + exp(x)), correctly rounded more
    # often than 1 / (1 + exp(-x)); x is capped at 40, where the result is already exactly
    # 1, so that exp cannot overflow to inf / inf
    x = np.asarray(x)
    e = np.exp(np.minimum(x, x.dtype.type(40.0)))
    return (e / (x.dtype.type(1.0) + e))[()]


def _sigmoid_scalar(x):
    e = math.exp(40.0 if x > 40.0 else x)
    return e / (1.0 + e)


def _sigmoid_sympy(sp, xs, vs):
    # the form that does not overflow at the point (both are the same function)
    (x,), (v,) = xs, vs
    return 1 / (1 + sp.exp(-x)) if not v < 0 else sp.exp(x) / (1 + sp.exp(x))


unary(
    "sigmoid",
    _sigmoid,
    _sigmoid_scalar,
    lambda b, n, g: b.sigmoid_grad(n.id, g),
    sympy=each_at(_sigmoid_sympy),
)


def _relu(x):
    return np.maximum(x, 0)


def _relu_scalar(x):
    return x if x > 0.0 or x != x else 0.0


# relu'(0) = 0: the gradient passes where the output is positive (TensorFlow's ReluGrad)
unary(
    "relu",
    _relu,
    _relu_scalar,
    lambda b, n, g: b.relu_grad(g, n.id),
    infer=numeric_unary("relu"),
    behavior=KINK,
    # x where x > 0 at the point, else the constant value (0; relu'(0) = 0)
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[0] > 0 else number(sp, np.maximum(vs[0], 0))),
)


def _softplus(x):
    # TensorFlow's thresholds: x for large x, exp(x) for very negative x, else log1p(exp(x))
    x = np.asarray(x)
    threshold = np.log(np.finfo(x.dtype).eps) + 2.0
    with np.errstate(all="ignore"):
        mid = np.log1p(np.exp(x))
    out = np.where(x > -threshold, x, np.where(x < threshold, np.exp(x), mid))
    return out.astype(x.dtype, copy=False)[()]


_SOFTPLUS_THRESHOLD = math.log(np.finfo(np.float64).eps) + 2.0


def _softplus_scalar(x):
    # the same thresholds on a Python float, with libm's exp and log1p as TensorFlow's
    # scalar kernel uses (numpy's vectorised exp can differ in the last bit)
    if x > -_SOFTPLUS_THRESHOLD:
        return x
    return math.exp(x) if x < _SOFTPLUS_THRESHOLD else math.log1p(math.exp(x))


def _softplus_grad(b, n, g):
    # g * sigmoid(x), TensorFlow's _SoftplusGrad
    return b.mul(g, b.sigmoid(_x(n)))


def _softplus_sympy(sp, xs, vs):
    # log(1 + exp(x)), written as x + log(1 + exp(-x)) where exp(x) would overflow
    (x,), (v,) = xs, vs
    return x + sp.log(1 + sp.exp(-x)) if v > 0 else sp.log(1 + sp.exp(x))


unary(
    "softplus",
    _softplus,
    _softplus_scalar,
    _softplus_grad,
    sympy=each_at(_softplus_sympy),
)

# --- floor, ceil, round: not differentiable ------------------------------------------------
unary("floor", np.floor, None, None, behavior=CUT)
unary("ceil", np.ceil, None, None, behavior=CUT)
unary(
    "round",
    np.round,
    None,
    None,
    infer=numeric_unary("round"),
    behavior=CUT,
    doc="rounds half to even, as TensorFlow",
)


# --- add, sub, mul, div ------------------------------------------------------------------
binary(
    "add",
    np.add,
    operator.add,
    (lambda b, n, g: g, lambda b, n, g: g),
    sympy=each(lambda sp, x, y: x + y),
)
binary(
    "sub",
    np.subtract,
    operator.sub,
    (lambda b, n, g: g, lambda b, n, g: b.neg(g)),
    sympy=each(lambda sp, x, y: x - y),
)
binary(
    "mul",
    np.multiply,
    operator.mul,
    (lambda b, n, g: b.mul(g, _y(n)), lambda b, n, g: b.mul(_x(n), g)),
    behavior=MASK,
    sympy=each(lambda sp, x, y: x * y),
)


def _div_infer(attrs, x, y):
    shape, dtype = elementwise("div")(attrs, x, y)
    return shape, dtype if dtype in ("float32", "float64") else "float64"


def _div_grad_y(b, n, g):
    # g * ((-x / y) / y), TensorFlow's RealDiv gradient
    x, y = n.inputs
    return b.mul(g, b.div(b.div(b.neg(x), y), y))


binary(
    "div",
    np.true_divide,
    operator.truediv,
    (lambda b, n, g: b.div(g, _y(n)), _div_grad_y),
    infer=_div_infer,
    sympy=each(lambda sp, x, y: x / y),
)

# --- pow ---------------------------------------------------------------------------------


def _pow_grad_x(b, n, g):
    # (g * y) * x^(y-1), TensorFlow's formula: 0 * inf is nan, so the `where` trap applies
    # (where(x > 0, x ** 0.5, 0) has a nan gradient at 0, unlike sqrt)
    x, y = n.inputs
    return b.mul(b.mul(g, y), b.pow(x, b.sub(y, b.const(1.0, like=y))))


def _pow_grad_y(b, n, g):
    # (g * z) * log(x) where x > 0 and 0 elsewhere (d(x**y)/dy is 0 where x <= 0)
    x = _x(n)
    positive = b.greater(x, b.const(0.0, like=x))
    safe_x = b.where(positive, x, b.const(1.0, like=x))
    log_x = b.where(positive, b.log(safe_x), b.const(0.0, like=x))
    return b.mul(b.mul(g, n.id), log_x)


def _pow_sympy(sp, xs, vs):
    # where x <= 0 at the point the exponent is a constant (d(x**y)/dy is 0 there)
    (x, y), (xv, yv) = xs, vs
    return x ** number(sp, yv) if xv <= 0 else x**y


binary("pow", np.power, math.pow, (_pow_grad_x, _pow_grad_y), sympy=each_at(_pow_sympy))

# mul_no_nan(a, b) = a * b, but 0 where b == 0 (internal, TensorFlow's MulNoNan)
binary(
    "mul_no_nan",
    lambda a, b: np.where(np.equal(b, 0), np.zeros((), np.result_type(a, b)), np.multiply(a, b)),
    lambda a, b: 0.0 if b == 0.0 else a * b,
    (lambda b, n, g: b.mul_no_nan(g, _y(n)), lambda b, n, g: b.mul_no_nan(_x(n), g)),
    public=False,
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[1] == 0 else xs[0] * xs[1]),
)


# div_no_nan(a, b) = a / b, but 0 where b == 0 even if a is inf or nan (internal: the
# cumprod gradient; TensorFlow's DivNoNan and its gradient)
def _div_no_nan_forward(a, b):
    with np.errstate(all="ignore"):
        quotient = np.true_divide(a, b)
    return np.where(np.equal(b, 0), np.zeros((), quotient.dtype), quotient)


def _div_no_nan_grad_y(b, n, g):
    x, y = n.inputs
    return b.mul(g, b.div_no_nan(b.div_no_nan(b.neg(x), y), y))


binary(
    "div_no_nan",
    _div_no_nan_forward,
    lambda a, b: 0.0 if b == 0.0 else a / b,
    (lambda b, n, g: b.div_no_nan(g, _y(n)), _div_no_nan_grad_y),
    public=False,
)


# --- maximum, minimum: a tie gives the whole gradient to the first argument --------------
def _maximum_scalar(a, b):
    return a if a >= b or a != a else b


def _minimum_scalar(a, b):
    return a if a <= b or a != a else b


def _select_rules(selector: str):
    def to_x(b, n, g):
        x, y = n.inputs
        return b.where(b.emit(selector, x, y), g, b.const(0.0, like=x))

    def to_y(b, n, g):
        x, y = n.inputs
        return b.where(b.emit(selector, x, y), b.const(0.0, like=x), g)

    return (to_x, to_y)


binary(
    "maximum",
    np.maximum,
    _maximum_scalar,
    _select_rules("greater_equal"),
    behavior=KINK,
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[0] >= vs[1] else xs[1]),
)
binary(
    "minimum",
    np.minimum,
    _minimum_scalar,
    _select_rules("less_equal"),
    behavior=KINK,
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[0] <= vs[1] else xs[1]),
)


# --- comparisons and logic: boolean results, no gradient ----------------------------------
for _name, _ufunc in (
    ("less", np.less),
    ("less_equal", np.less_equal),
    ("greater", np.greater),
    ("greater_equal", np.greater_equal),
    ("equal", np.equal),
    ("not_equal", np.not_equal),
    ("logical_and", np.logical_and),
    ("logical_or", np.logical_or),
):
    binary(
        _name,
        _ufunc,
        None,
        (None, None),
        infer=elementwise(_name, result="bool"),
        behavior=CUT,
        accepts="bool" if _name.startswith("logical") else "compare",
    )


def _logical_not_infer(attrs, x):
    return x.shape, "bool"


unary(
    "logical_not",
    np.logical_not,
    None,
    None,
    infer=_logical_not_infer,
    behavior=CUT,
    accepts="bool",
)


# --- gradient kernels (internal): TensorFlow's fused gradient ops and their own gradients ----
def _sqrt_grad_forward(y, dy):
    with np.errstate(all="ignore"):
        return np.where(np.equal(dy, 0), np.zeros((), np.result_type(y, dy)), 0.5 * dy / y)


def _sqrt_grad_scalar(y, dy):
    return 0.0 if dy == 0.0 else 0.5 * dy / y


def _sqrt_grad_grad_y(b, n, g):
    # TensorFlow's SqrtGradGrad: ga = g / y; d/dy = -ga * out
    y = _x(n)
    return b.mul(b.neg(b.div(g, y)), n.id)


def _sqrt_grad_grad_dy(b, n, g):
    y = _x(n)
    return b.mul(b.const(0.5, like=y), b.div(g, y))


binary(
    "sqrt_grad",
    _sqrt_grad_forward,
    _sqrt_grad_scalar,
    (_sqrt_grad_grad_y, _sqrt_grad_grad_dy),
    public=False,
    sympy=each_at(lambda sp, xs, vs: sp.Integer(0) if vs[1] == 0 else xs[1] / (2 * xs[0])),
)


def _tanh_grad_grad_y(b, n, g):
    # d/dy [dy * (1 - y^2)] = -2 * dy * y
    y, dy = n.inputs
    return b.mul(b.mul(b.mul(g, b.const(-2.0, like=y)), dy), y)


def _tanh_grad_forward(y, dy, out=None):
    """dy * (1 - y*y), the same three roundings, with one array instead of three temporaries.

    out (a dead buffer of the result's shape and dtype, from the executor) takes y*y unless
    it holds dy, which is still to be read.
    """
    t = np.multiply(y, y, out=None if out is None or np.may_share_memory(out, dy) else out)
    if type(t) is not np.ndarray:  # 0-d values: numpy scalars, no buffer to reuse
        return dy * (1.0 - t)
    np.subtract(1.0, t, out=t)
    dest = t if out is None else out
    if (
        np.broadcast_shapes(np.shape(dy), t.shape) != dest.shape
        or np.result_type(dy, t) != dest.dtype
    ):
        return dy * t
    return np.multiply(dy, t, out=dest)


binary(
    "tanh_grad",
    _tanh_grad_forward,
    lambda y, dy: dy * (1.0 - y * y),
    (_tanh_grad_grad_y, lambda b, n, g: b.tanh_grad(_x(n), g)),
    public=False,
    sympy=each(lambda sp, y, dy: dy * (1 - y**2)),
)


def _sigmoid_grad_grad_y(b, n, g):
    # d/dy [dy * y * (1 - y)] = dy - 2 * dy * y
    y, dy = n.inputs
    gb = b.mul(g, dy)
    return b.sub(gb, b.mul(b.mul(b.const(2.0, like=y), gb), y))


binary(
    "sigmoid_grad",
    lambda y, dy: dy * y * (1.0 - y),
    lambda y, dy: dy * y * (1.0 - y),
    (_sigmoid_grad_grad_y, lambda b, n, g: b.sigmoid_grad(_x(n), g)),
    public=False,
    sympy=each(lambda sp, y, dy: dy * y * (1 - y)),
)


def _relu_grad_forward(dy, out):
    # dy * (out > 0), as TensorFlow's ReluGrad kernel: inf * 0 is nan there too
    return dy * np.greater(out, 0).astype(np.result_type(dy, out))


def _relu_grad_scalar(dy, out):
    return dy * (1.0 if out > 0.0 else 0.0)


binary(
    "relu_grad",
    _relu_grad_forward,
    _relu_grad_scalar,
    (lambda b, n, g: b.relu_grad(g, _y(n)), lambda b, n, g: ZERO_GRAD),
    behavior=KINK,
    public=False,
    sympy=each_at(lambda sp, xs, vs: xs[0] if vs[1] > 0 else sp.Integer(0)),
)
