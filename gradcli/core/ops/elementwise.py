"""Public elementwise ops: one block per op, forward beside its gradient rules (TF's formulas).

A rule is rule(b, node, g) -> the gradient for one input, built with graph ops through
the GradBuilder b; node.inputs are input ids and node.id is the op's own output.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from gradcli.core.ops import kink_facts
from gradcli.core.ops.infer import elementwise, float_unary, numeric_unary
from gradcli.core.ops.registry import (
    BROADCAST,
    CUT,
    KINK,
    MASK,
    SMOOTH,
    UNARY,
    ZERO,
    ZERO_GRAD,
    Op,
    Operator,
    register,
)
from gradcli.core.ops.sym import each, each_at, number


def unary(
    name,
    forward,
    scalar,
    rule,
    *,
    infer=None,
    behavior=SMOOTH,
    sympy=None,
    doc="",
    accepts=None,
    **facts,
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
            **facts,
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
    **facts,
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
            **facts,
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
    operator=Operator("-", UNARY, prefix=True),
    overflows=True,
    batched=BROADCAST,
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
unary(
    "exp",
    np.exp,
    math.exp,
    lambda b, n, g: b.mul(g, n.id),
    sympy=each(lambda sp, x: sp.exp(x)),
    overflows=True,
)


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
    convention=kink_facts.sqrt,
)
unary(
    "square",
    np.square,
    lambda x: x * x,
    lambda b, n, g: b.mul(g, b.mul(_x(n), b.const(2.0, like=_x(n)))),
    infer=numeric_unary("square"),
    sympy=each(lambda sp, x: x**2),
    overflows=True,
    batched=BROADCAST,
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


def _abs_at_point(node, args, raw):
    x, x0 = args[0], raw[0]
    return np.where(x0 > 0, x, np.where(x0 < 0, -x, np.where(x0 == 0, 0.0, np.abs(x))))


unary(
    "abs",
    np.abs,
    abs,
    lambda b, n, g: b.mul(g, b.sign(_x(n))),
    infer=numeric_unary("abs"),
    behavior=KINK,
    sympy=each_at(_abs_sympy),
    at_point=_abs_at_point,
    convention=kink_facts.abs_,
    inactive=(
        "abs({arg}) is at its kink (input = 0, where abs' = 0) at {count}",
        "abs in {entry} {line} is at its kink there (abs'(0) = 0)",
    ),
)
unary(
    "sign",
    np.sign,
    lambda x: float(np.sign(x)),
    lambda b, n, g: ZERO_GRAD,
    infer=numeric_unary("sign"),
    behavior=ZERO,
    convention=kink_facts.sign,
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


def _relu_at_point(node, args, raw):
    return np.where(raw[0] > 0, args[0], np.maximum(raw[0], 0))


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
    at_point=_relu_at_point,
    convention=kink_facts.relu,
    selects=True,
    inactive=(
        "relu({arg}) is inactive (input <= 0) at {count}",
        "relu in {entry} {line} is inactive there (input <= 0)",
    ),
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
    overflows=True,
)

# --- floor, ceil, round: not differentiable ------------------------------------------------
unary("floor", np.floor, None, None, behavior=CUT, convention=kink_facts.floor)
unary("ceil", np.ceil, None, None, behavior=CUT, convention=kink_facts.ceil)
unary(
    "round",
    np.round,
    None,
    None,
    infer=numeric_unary("round"),
    behavior=CUT,
    convention=kink_facts.round_,
    doc="rounds half to even, as TensorFlow",
)


# --- add, sub, mul, div ------------------------------------------------------------------
binary(
    "add",
    np.add,
    operator.add,
    (lambda b, n, g: g, lambda b, n, g: g),
    sympy=each(lambda sp, x, y: x + y),
    operator=Operator("+", 10),
    overflows=True,
    batched=BROADCAST,
)
binary(
    "sub",
    np.subtract,
    operator.sub,
    (lambda b, n, g: g, lambda b, n, g: b.neg(g)),
    sympy=each(lambda sp, x, y: x - y),
    operator=Operator("-", 10),
    overflows=True,
    batched=BROADCAST,
)
binary(
    "mul",
    np.multiply,
    operator.mul,
    (lambda b, n, g: b.mul(g, _y(n)), lambda b, n, g: b.mul(_x(n), g)),
    behavior=MASK,
    sympy=each(lambda sp, x, y: x * y),
    operator=Operator("*", 20),
    overflows=True,
    batched=BROADCAST,
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
    operator=Operator("/", 20),
    pole_input=1,
    overflows=True,
    pole=lambda x, y: y == 0,
    batched=BROADCAST,
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


def _pow_at_point(node, args, raw):
    # the exponent is a constant where x <= 0 (d(x**y)/dy is 0 there)
    return np.power(args[0], np.where(raw[0] <= 0, raw[1], args[1]))


binary(
    "pow",
    np.power,
    math.pow,
    (_pow_grad_x, _pow_grad_y),
    sympy=each_at(_pow_sympy),
    operator=Operator("**", 30, right=True),
    overflows=True,
    at_point=_pow_at_point,
    convention=kink_facts.pow_,
    pole=lambda base, exponent: base == 0,
    pole_input=0,
)
