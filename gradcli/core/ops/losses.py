"""Losses as TensorFlow computes them: tf.nn.sigmoid_cross_entropy_with_logits, tf.nn.l2_loss
and Keras' huber.

sigmoid_cross_entropy and huber are composite ops (ops/composite.py): TensorFlow defines
them as compositions of other ops, and their gradients are its autodiff of those. l2_loss
is TensorFlow's L2Loss kernel, sum(x^2 * 0.5), with its own gradient x * g.
"""

from __future__ import annotations

from gradcli.core.ops.composite import composite_op, evaluate, expansion_sympy
from gradcli.core.ops.elementwise import _x
from gradcli.core.ops.infer import need_float
from gradcli.core.ops.registry import Attr, AttrKind, Op, ShapeError, Transport, register


def _pair_infer(name):
    """Two float tensors of one shape and dtype (TensorFlow does not broadcast them here)."""

    def infer(attrs, a, b):
        need_float(name, a)
        need_float(name, b)
        if a.shape != b.shape:
            raise ShapeError(
                f"{name}: the two tensors must have one shape, got {a.shape} and {b.shape}"
            )
        if a.dtype != b.dtype:
            raise ShapeError(
                f"{name}: the two tensors must have one dtype, got {a.dtype} and {b.dtype}"
            )
        return a.shape, a.dtype

    return infer


def composite(name, expand, infer, **facts):
    """Register a public composite op: everything from its expansion."""
    return register(composite_op(name, expand, infer, **facts))


# --- sigmoid_cross_entropy ------------------------------------------------------------------
def _sigmoid_xent_expand(b, attrs, labels, logits):
    # tf.nn.sigmoid_cross_entropy_with_logits: max(x, 0) - x * z + log1p(exp(-|x|)), with
    # max and -|x| as two selects on x >= 0
    zero = b.const(0.0, like=logits)
    positive = b.greater_equal(logits, zero)
    relu_logits = b.where(positive, logits, zero)
    neg_abs_logits = b.where(positive, b.neg(logits), logits)
    return b.add(b.sub(relu_logits, b.mul(logits, labels)), b.log1p(b.exp(neg_abs_logits)))


composite(
    "sigmoid_cross_entropy",
    _sigmoid_xent_expand,
    _pair_infer("sigmoid_cross_entropy"),
    elementwise=True,
    arity=2,
    overflows=True,
    doc="tf.nn.sigmoid_cross_entropy_with_logits(labels, logits), elementwise",
)


# --- huber -------------------------------------------------------------------------------------
def _delta(attrs) -> float:
    return float(attrs.get("delta", 1.0))


def _huber_infer(attrs, y_true, y_pred):
    shape, dtype = _pair_infer("huber")(attrs, y_true, y_pred)
    if not shape:
        raise ShapeError("huber needs tensors of rank 1 or more (it averages the last axis)")
    return shape[:-1], dtype


def _huber_expand(b, attrs, y_true, y_pred):
    # keras.losses.huber: mean over the last axis of where(|e| <= delta, 0.5 * e^2,
    # delta * |e| - 0.5 * delta^2), e = y_pred - y_true
    error = b.sub(y_pred, y_true)
    abs_error = b.abs(error)
    half = b.const(0.5, like=error)
    delta = b.const(_delta(attrs), like=error)
    quadratic = b.mul(half, b.square(error))
    linear = b.sub(b.mul(delta, abs_error), b.mul(half, b.square(delta)))
    return b.mean(b.where(b.less_equal(abs_error, delta), quadratic, linear), axis=-1)


composite(
    "huber",
    _huber_expand,
    _huber_infer,
    arity=2,
    attrs=(Attr("delta", AttrKind.FLOAT, 1.0),),
    transport=Transport.OPAQUE,
    overflows=True,
    doc="keras.losses.huber(y_true, y_pred, delta=1): the mean over the last axis",
)


# --- l2_loss -------------------------------------------------------------------------------------
def _l2_loss_infer(attrs, x):
    need_float("l2_loss", x)
    return (), x.dtype


def _l2_loss_expand(b, attrs, x):
    # TensorFlow's L2Loss kernel: sum(square(x) * 0.5)
    return b.sum(b.mul(b.square(x), b.const(0.5, like=x)), axis=None, keepdims=False)


register(
    Op(
        "l2_loss",
        _l2_loss_infer,
        bind=evaluate(_l2_loss_expand),
        grads=(lambda b, n, g: b.mul(_x(n), g),),  # TensorFlow's _L2LossGrad: x * g
        sympy=expansion_sympy(_l2_loss_expand),
        public=True,
        arity=1,
        accepts="float",
        transport=Transport.REDUCE,
        overflows=True,
        doc="tf.nn.l2_loss: sum(x ** 2) / 2",
    )
)
