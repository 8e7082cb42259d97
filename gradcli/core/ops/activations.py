"""Activation functions: TensorFlow's definitions, kernels and gradient formulas (nn_grad.py).

Kink ops pass the gradient where TensorFlow's gradient kernels do (LeakyReluGrad: x > 0,
Relu6Grad: 0 < y < 6, EluGrad and SeluGrad: y < 0 takes the exponential side), and their
internal gradient kernels have TensorFlow's own second-order rules.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops import kink_facts
from gradcli.core.ops.elementwise import _x, _y, binary, unary
from gradcli.core.ops.infer import elementwise, need_float, row_infer
from gradcli.core.ops.reduce import _extreme, _lowest
from gradcli.core.ops.registry import (
    KINK,
    ZERO_GRAD,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.sym import each_at, finite_max, number, scan_rows

# SELU's constants as TensorFlow's kernel writes them (scale, and scale * alpha)
SELU_SCALE = 1.0507009873554804934193349852946
SELU_SCALE_ALPHA = 1.7580993408473768599402175208123


def _exp_minus_one(x):
    # TensorFlow's Elu and Selu kernels compute exp(x) - 1, not expm1(x)
    with np.errstate(over="ignore"):
        return np.exp(x) - x.dtype.type(1.0)


# --- leaky_relu ----------------------------------------------------------------------------
def _alpha(attrs) -> float:
    # TensorFlow's LeakyRelu stores alpha as a float32 attribute: 0.2 is 0.20000000298...
    return float(np.float32(attrs.get("alpha", 0.2)))


def _leaky_infer(name):
    def infer(attrs, *nodes):
        with np.errstate(over="ignore"):
            if not np.isfinite(np.float32(attrs.get("alpha", 0.2))):
                raise ShapeError(
                    f"{name}: alpha must be finite in float32 (TensorFlow's attribute)"
                )
        for node in nodes:
            need_float(name, node)
        return elementwise(name)(attrs, *nodes)

    return infer


def _leaky_bind(attrs):
    alpha = _alpha(attrs)

    def leaky_relu(v, x=None):
        # the forward leaky_relu(x), and TensorFlow's LeakyReluGrad(g, x): x > 0 ? g : alpha * g
        v = np.asarray(v)
        return np.where(np.greater(v if x is None else x, 0), v, v * v.dtype.type(alpha))[()]

    return leaky_relu


def _leaky_sympy(sp, attrs, args, values):
    alpha = number(sp, _alpha(attrs))
    return each_at(lambda sp, xs, vs: xs[0] if vs[0] > 0 else alpha * xs[0])(
        sp, attrs, args, values
    )


register(
    Op(
        "leaky_relu",
        _leaky_infer("leaky_relu"),
        bind=_leaky_bind,
        grads=(lambda b, n, g: b.leaky_relu_grad(g, _x(n), alpha=n.attrs.get("alpha", 0.2)),),
        behavior=KINK,
        elementwise=True,
        public=True,
        arity=1,
        attrs=(Attr("alpha", AttrKind.FLOAT, 0.2),),
        accepts="float",
        sympy=_leaky_sympy,
        at_point=lambda node, args, raw: np.where(
            raw[0] > 0, args[0], args[0] * _alpha(node.attrs)
        ),
        convention=kink_facts.leaky_relu(lambda node: _alpha(node.attrs)),
        inactive=(
            "leaky_relu({arg}) passes no gradient (input <= 0 with alpha = 0) at {count}",
            "leaky_relu in {entry} {line} passes no gradient there (input <= 0, alpha = 0)",
        ),
        doc="max-like: x where x > 0, else alpha * x (alpha rounded to float32, as TensorFlow)",
    )
)
register(
    Op(
        "leaky_relu_grad",  # TensorFlow's LeakyReluGrad(g, x): x > 0 ? g : alpha * g
        _leaky_infer("leaky_relu_grad"),
        bind=_leaky_bind,
        grads=(
            lambda b, n, g: b.leaky_relu_grad(g, _y(n), alpha=n.attrs.get("alpha", 0.2)),
            lambda b, n, g: ZERO_GRAD,
        ),
        behavior=KINK,
        elementwise=True,
        arity=2,
        attrs=(Attr("alpha", AttrKind.FLOAT, 0.2),),
        no_sympy="an internal kernel of gradient graphs, never in a forward graph",
    )
)


# --- relu6 and hard_sigmoid -----------------------------------------------------------------
def _relu6(x):
    x = np.asarray(x)
    return np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6))[()]


def _relu6_scalar(x):
    return min(max(x, 0.0), 6.0)  # Eigen's cwiseMax/cwiseMin: nan and -0.0 pass through


def _relu6_grad_forward(dy, y):
    # dy * (0 < y < 6), as TensorFlow's Relu6Grad kernel: inf * 0 is nan there too
    inside = np.logical_and(np.greater(y, 0), np.less(y, 6))
    return dy * inside.astype(np.result_type(dy, y))


def _relu6_grad_selection(graph, node, value):
    y = value(node.inputs[1])
    return ~((y > 0) & (y < 6)), node.inputs[0]


def _relu6_at_point(node, args, raw):
    return np.where((raw[0] > 0) & (raw[0] < 6), args[0], _relu6(raw[0]))


unary(
    "relu6",
    _relu6,
    _relu6_scalar,
    lambda b, n, g: b.relu6_grad(g, n.id),  # TensorFlow's _Relu6Grad reads the output
    behavior=KINK,
    sympy=each_at(lambda sp, xs, vs: xs[0] if 0 < vs[0] < 6 else number(sp, _relu6(vs[0]))),
    at_point=_relu6_at_point,
    convention=kink_facts.relu6,
    selects=True,
    inactive=(
        "relu6({arg}) is saturated (input <= 0 or >= 6) at {count}",
        "relu6 in {entry} {line} is saturated there (input <= 0 or >= 6)",
    ),
)
binary(
    "relu6_grad",
    _relu6_grad_forward,
    lambda dy, y: dy * (1.0 if 0.0 < y < 6.0 else 0.0),
    # TensorFlow's _Relu6GradGrad: relu6_grad(g, y) to dy, zeros to y
    (lambda b, n, g: b.relu6_grad(g, _y(n)), lambda b, n, g: ZERO_GRAD),
    behavior=KINK,
    public=False,
    sympy=each_at(lambda sp, xs, vs: xs[0] if 0 < vs[1] < 6 else sp.Integer(0)),
    overflows=True,
    selects=True,
    selection=_relu6_grad_selection,
)


def _hard_sigmoid(x):
    # Keras 3 (TensorFlow backend): relu6(x + 3) / 6
    x = np.asarray(x)
    return (_relu6(x + x.dtype.type(3)) / x.dtype.type(6))[()]


def _hard_sigmoid_grad(b, n, g):
    # the chain TensorFlow differentiates: g / 6, then Relu6Grad(g / 6, y) with y the output
    # of relu6(x + 3) (_Relu6Grad reads it: 0 < y < 6 where 0 < x + 3 < 6). y is recomputed
    # in the gradient graph so that Relu6GradGrad's zeros to y flow back through relu6's
    # own gradient: the third derivative is a connected zero, as TensorFlow's nested tapes
    x = _x(n)
    y = b.relu6(b.add(x, b.const(3.0, like=x)))
    return b.relu6_grad(b.div(g, b.const(6.0, like=x)), y)


def _hard_sigmoid_at_point(node, args, raw):
    t = raw[0] + 3.0
    return np.where((t > 0) & (t < 6), (args[0] + 3.0) / 6.0, _hard_sigmoid(raw[0]))


unary(
    "hard_sigmoid",
    _hard_sigmoid,
    lambda x: _relu6_scalar(x + 3.0) / 6.0,
    _hard_sigmoid_grad,
    behavior=KINK,
    sympy=each_at(
        lambda sp, xs, vs: (
            (xs[0] + 3) / 6 if 0 < vs[0] + 3 < 6 else number(sp, _hard_sigmoid(vs[0]))
        )
    ),
    at_point=_hard_sigmoid_at_point,
    convention=kink_facts.hard_sigmoid,
    selects=True,
    inactive=(
        "hard_sigmoid({arg}) is saturated (input <= -3 or >= 3) at {count}",
        "hard_sigmoid in {entry} {line} is saturated there (input <= -3 or >= 3)",
    ),
    doc="Keras 3's relu6(x + 3) / 6",
)


# --- elu, selu --------------------------------------------------------------------------------
def _elu(x):
    x = np.asarray(x)
    return np.where(x < 0, _exp_minus_one(x), x)[()]


def _selu(x):
    x = np.asarray(x)
    t = x.dtype.type
    with np.errstate(over="ignore"):
        return np.where(x < 0, t(SELU_SCALE_ALPHA) * _exp_minus_one(x), t(SELU_SCALE) * x)[()]


def _elu_grad_forward(dy, y):
    # TensorFlow's EluGrad: y < 0 ? (y + 1) * dy : dy
    return np.where(np.less(y, 0), (y + 1.0) * dy, dy * np.ones_like(y))[()]


def _selu_grad_forward(dy, y):
    # TensorFlow's SeluGrad: y < 0 ? dy * (y + scale * alpha) : dy * scale
    return np.where(np.less(y, 0), dy * (y + SELU_SCALE_ALPHA), dy * SELU_SCALE)[()]


def _saturating_grad_y(kernel):
    def rule(b, n, g):
        # TensorFlow's _EluGradGrad / _SeluGradGrad: where(y < 0, g * dy, 0) to y
        dy, y = n.inputs
        zero = b.const(0.0, like=y)
        return b.where(b.less(y, zero), b.mul(g, dy), zero)

    return (lambda b, n, g: b.emit(kernel, g, _y(n)), rule)


def _exp_side_at_point(fn, exp_side):
    def at_point(node, args, raw):
        return np.where(fn(raw[0]) < 0, exp_side(args[0]), fn(args[0]))

    return at_point


unary(
    "elu",
    _elu,
    lambda x: math.exp(x) - 1.0 if x < 0.0 else x,
    lambda b, n, g: b.elu_grad(g, n.id),  # TensorFlow's _EluGrad reads the output
    behavior=KINK,
    sympy=each_at(lambda sp, xs, vs: sp.exp(xs[0]) - 1 if _elu(vs[0]) < 0 else xs[0]),
    at_point=_exp_side_at_point(_elu, lambda x: np.exp(x) - 1.0),
    no_convention="differentiable at 0 (alpha is 1: both one-sided derivatives are 1)",
    inactive=(
        "elu({arg}) is saturated (output = -1, where exp(x) - 1 rounds to -1) at {count}",
        "elu in {entry} {line} is saturated there (output = -1)",
    ),
)
binary(
    "elu_grad",
    _elu_grad_forward,
    lambda dy, y: (y + 1.0) * dy if y < 0.0 else dy,
    _saturating_grad_y("elu_grad"),
    behavior=KINK,
    public=False,
    no_sympy="an internal kernel of gradient graphs, never in a forward graph",
    overflows=True,
)
unary(
    "selu",
    _selu,
    lambda x: SELU_SCALE_ALPHA * (math.exp(x) - 1.0) if x < 0.0 else SELU_SCALE * x,
    lambda b, n, g: b.selu_grad(g, n.id),  # TensorFlow's _SeluGrad reads the output
    behavior=KINK,
    sympy=each_at(
        lambda sp, xs, vs: (
            number(sp, SELU_SCALE_ALPHA) * (sp.exp(xs[0]) - 1)
            if _selu(vs[0]) < 0
            else number(sp, SELU_SCALE) * xs[0]
        )
    ),
    at_point=_exp_side_at_point(_selu, lambda x: SELU_SCALE_ALPHA * (np.exp(x) - 1.0)),
    convention=kink_facts.selu(SELU_SCALE, SELU_SCALE_ALPHA),
    overflows=True,
    inactive=(
        "selu({arg}) is saturated (output = -scale * alpha) at {count}",
        "selu in {entry} {line} is saturated there (output = -scale * alpha)",
    ),
)
binary(
    "selu_grad",
    _selu_grad_forward,
    lambda dy, y: dy * (y + SELU_SCALE_ALPHA) if y < 0.0 else dy * SELU_SCALE,
    _saturating_grad_y("selu_grad"),
    behavior=KINK,
    public=False,
    no_sympy="an internal kernel of gradient graphs, never in a forward graph",
    overflows=True,
)


# --- log_softmax -------------------------------------------------------------------------------
def _log_softmax_bind(attrs):
    axis = attrs.get("axis", -1)

    def log_softmax(x):
        # TensorFlow's kernel: (x - max) - log(sum(exp(x - max)))
        shifted = x - _extreme(np.max, _lowest)(x, axis, True)
        return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))

    return log_softmax


def _log_softmax_grad(b, n, g):
    # TensorFlow's _LogSoftmaxGrad: g - sum(g, axis) * exp(out)
    total = b.sum(g, axis=(n.attrs.get("axis", -1),), keepdims=True)
    return b.sub(g, b.mul(total, b.exp(n.id)))


def _log_softmax_sympy(sp, attrs, args, values):
    def row(xs, vs):
        m = number(sp, finite_max(vs))
        total = sp.log(sp.Add(*[sp.exp(x - m) for x in xs]))
        return [(x - m) - total for x in xs]

    axis = attrs.get("axis", -1) % args[0].ndim
    return scan_rows(axis, args[0], values[0], row)


register(
    Op(
        "log_softmax",
        row_infer("log_softmax"),
        bind=_log_softmax_bind,
        grads=(_log_softmax_grad,),
        public=True,
        arity=1,
        attrs=(Attr("axis", AttrKind.AXIS, -1),),
        transport=Transport.SCAN,
        cancels=True,
        accepts="float",
        sympy=_log_softmax_sympy,
    )
)
