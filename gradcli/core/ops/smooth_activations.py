"""Smooth activations: silu (swish), softsign, log_sigmoid, mish and gelu.

TensorFlow defines most of them as compositions of other ops; their gradients are the
chains TensorFlow differentiates (tf.nn.silu's custom gradient, SoftsignGrad). gelu is a
composite op (ops/composite.py): its one expansion gives forward, gradient and SymPy form.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gradcli.core.graph import FLOAT_DTYPES
from gradcli.core.ops import elementwise as ew
from gradcli.core.ops.composite import composite_op
from gradcli.core.ops.elementwise import _x, unary
from gradcli.core.ops.infer import float_unary, fmt
from gradcli.core.ops.registry import Attr, AttrKind, Op, ShapeError, register
from gradcli.core.ops.sym import each_at


# --- silu (swish): tf.nn.silu(features, beta=1.0) = features * sigmoid(beta * features) -----
def _silu(x, beta):
    x = np.asarray(x)
    beta = np.asarray(beta).astype(x.dtype)  # TensorFlow casts beta to the features' dtype
    return (x * ew._sigmoid(beta * x))[()]


def _beta_as_x(b, n):
    beta = n.inputs[1]
    return (
        beta if b.dtype(beta) == b.dtype(n.inputs[0]) else b.cast(beta, dtype=b.dtype(n.inputs[0]))
    )


def _silu_grad_x(b, n, g):
    # tf.nn.silu's custom gradient: g * (s * (1 + (beta * x) * (1 - s))), s = sigmoid(beta * x)
    x = _x(n)
    one = b.const(1.0, like=x)
    bx = b.mul(_beta_as_x(b, n), x)
    s = b.sigmoid(bx)
    return b.mul(g, b.mul(s, b.add(one, b.mul(bx, b.sub(one, s)))))


def _silu_grad_beta(b, n, g):
    # its beta_grad: reduce_sum(g * square(x) * s * (1 - s)), the sum left to the broadcast
    # (beta is a scalar), then the cast back to beta's own dtype
    x = _x(n)
    s = b.sigmoid(b.mul(_beta_as_x(b, n), x))
    r = b.mul(b.mul(b.mul(g, b.square(x)), s), b.sub(b.const(1.0, like=x), s))
    beta = n.inputs[1]
    if b.dtype(beta) != b.dtype(x):
        r = b.cast(b.sum(r), dtype=b.dtype(beta))
    return r


def _silu_infer(name):
    def infer(attrs, x, beta):
        if x.dtype not in FLOAT_DTYPES or beta.dtype not in FLOAT_DTYPES:
            raise ShapeError(f"{name}: needs float tensors (features and beta)")
        if beta.shape != ():
            raise ShapeError(
                f"{name}: beta must be a scalar, got shape {fmt(beta.shape)} (TensorFlow's "
                "gradient sums beta's over every element)"
            )
        return x.shape, x.dtype

    return infer


def _silu_sympy(sp, xs, vs):
    (x, beta), (vx, vbeta) = xs, vs
    return x * ew._sigmoid_sympy(sp, (beta * x,), (vbeta * vx,))


SILU = register(
    Op(
        "silu",
        _silu_infer("silu"),
        forward=_silu,
        grads=(_silu_grad_x, _silu_grad_beta),
        elementwise=True,
        public=True,
        arity=2,
        attrs=(Attr("beta", AttrKind.TENSOR, 1.0),),
        accepts="float",
        sympy=each_at(_silu_sympy),
        doc="x * sigmoid(beta * x), tf.nn.silu (also named swish; beta=1 unless given, a "
        "scalar that gets a gradient)",
    )
)
register(replace(SILU, name="swish", infer=_silu_infer("swish"), doc="the same op as silu"))


def _softsign(x):
    x = np.asarray(x)
    return (x / (np.abs(x) + x.dtype.type(1)))[()]


def _softsign_grad(b, n, g):
    # TensorFlow's SoftsignGrad kernel: g / (|x| + 1)^2 (TensorFlow has no second order)
    x = _x(n)
    return b.div(g, b.square(b.add(b.abs(x), b.const(1.0, like=x))))


def _softsign_sympy(sp, xs, vs):
    # |x| as the side taken at the point, and the constant 0 at 0 (abs'(0) = 0)
    x, v = xs[0], vs[0]
    return x / (1 + (x if v > 0 else -x if v < 0 else sp.Integer(0)))


unary(
    "softsign",
    _softsign,
    lambda x: x / (abs(x) + 1.0),
    _softsign_grad,
    sympy=each_at(_softsign_sympy),
)


def _log_sigmoid(x):
    # tf.math.log_sigmoid: -softplus(-x)
    return np.negative(ew._softplus(np.negative(x)))


def _log_sigmoid_grad(b, n, g):
    # the chain TensorFlow differentiates, neg(softplus(neg x)): g * sigmoid(-x)
    return b.mul(g, b.sigmoid(b.neg(_x(n))))


unary(
    "log_sigmoid",
    _log_sigmoid,
    None,
    _log_sigmoid_grad,
    sympy=each_at(lambda sp, xs, vs: -ew._softplus_sympy(sp, (-xs[0],), (-vs[0],))),
)


def _mish(x):
    # Keras 3's mish: x * tanh(softplus(x))
    x = np.asarray(x)
    return (x * np.tanh(ew._softplus(x)))[()]


def _mish_grad(b, n, g):
    # the chain TensorFlow differentiates: g * t + sigmoid(x) * tanh_grad(t, x * g)
    x = _x(n)
    t = b.tanh(b.softplus(x))
    return b.add(b.mul(g, t), b.mul(b.tanh_grad(t, b.mul(x, g)), b.sigmoid(x)))


unary(
    "mish",
    _mish,
    None,
    _mish_grad,
    sympy=each_at(lambda sp, xs, vs: xs[0] * sp.tanh(ew._softplus_sympy(sp, xs, vs))),
    doc="x * tanh(softplus(x)), keras.activations.mish",
)


# --- gelu --------------------------------------------------------------------------------------
# tf.nn.gelu's constants: cast(c, float64) converts the Python float to float32 first
_GELU_ERFC_SCALE = float(np.float32(0.7071067811865476))
_GELU_CUBIC = float(np.float32(0.044715))
_GELU_TANH_SCALE = 0.7978845608028654  # a Python float meeting a float64 tensor: exact


def _gelu_expand(b, attrs, x):
    # tf.nn.gelu: 0.5 * x * erfc(-x * cast(1/sqrt(2))), or with approximate=True
    # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + cast(0.044715) * pow(x, 3))))
    half = b.mul(b.const(0.5, like=x), x)
    if not attrs.get("approximate", False):
        return b.mul(half, b.erfc(b.mul(b.neg(x), b.const(_GELU_ERFC_SCALE, like=x))))
    cubic = b.mul(b.const(_GELU_CUBIC, like=x), b.pow(x, b.const(3.0, like=x)))
    inner = b.mul(b.const(_GELU_TANH_SCALE, like=x), b.add(x, cubic))
    return b.mul(half, b.add(b.const(1.0, like=x), b.tanh(inner)))


register(
    composite_op(
        "gelu",
        _gelu_expand,
        float_unary("gelu"),
        elementwise=True,
        arity=1,
        attrs=(Attr("approximate", AttrKind.BOOL, False),),
        overflows=True,
        doc="x * Phi(x), tf.nn.gelu (approximate=true: its tanh form)",
    )
)
