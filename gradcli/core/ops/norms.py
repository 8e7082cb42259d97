"""Norms and normalizations as TensorFlow composes them: tf.norm, tf.math.l2_normalize, and
logmeanexp (tfp.math.reduce_logmeanexp's definition; TensorFlow's core has no such op).

All three are composite ops (ops/composite.py): TensorFlow writes them with reduce_sum,
sqrt, abs, reduce_max, pow, maximum and rsqrt, and their gradients are its autodiff of
those compositions. So the gradient of the euclidean norm at x = 0 is nan (sqrt'(0) = inf
times x = 0), the 1-norm's and the max norm's pass nothing where x is 0 (abs'(0) = 0),
and l2_normalize at 0 has gradient 1 / sqrt(epsilon) (maximum picks epsilon).
"""

from __future__ import annotations

import math

from gradcli.core.ops import tie_facts
from gradcli.core.ops.composite import composite_op
from gradcli.core.ops.infer import need_float, normalize_axes, reduced_shape
from gradcli.core.ops.registry import (
    KINK,
    Attr,
    AttrKind,
    ShapeError,
    Transport,
    register,
)

EUCLIDEAN = ("euclidean", "fro", 2.0)  # the orders tf.norm computes as sqrt(sum(x * x))


def composite(name, expand, infer, **facts):
    """Register a public one-input composite: everything from its expansion."""
    return register(composite_op(name, expand, infer, arity=1, overflows=True, **facts))


def _axes(attrs, ndim: int, name: str) -> tuple[int, ...] | None:
    return normalize_axes(name, attrs.get("axis"), ndim)


# --- norm ------------------------------------------------------------------------------------
def norm_order(attrs, ndim: int) -> tuple[object, tuple[int, ...] | None, bool]:
    """(ord, axes, is a matrix norm), checked as tf.norm checks them (ShapeError)."""
    order = attrs.get("ord", "euclidean")
    axis = attrs.get("axis")
    matrix = isinstance(axis, (list, tuple))
    if matrix and len(axis) != 2:
        raise ShapeError(
            f"norm: axis must be None, an integer, or a list of 2 distinct integers, got {axis}"
        )
    axes = normalize_axes("norm", axis, ndim)
    if matrix:
        axes = tuple(a % ndim for a in axis)  # tf.norm's order: axis[0] first
        if order == 2.0:
            raise ShapeError(
                "norm: ord=2 of a matrix (its largest singular value) is not supported; "
                "ord may be 'euclidean', 'fro', 1 or inf"
            )
        if order not in ("euclidean", "fro", 1.0, math.inf):
            raise ShapeError(
                f"norm: ord must be a supported matrix norm ('euclidean', 'fro', 1, inf), "
                f"got {order!r}"
            )
    elif order != "euclidean" and (isinstance(order, str) or not order > 0):
        raise ShapeError(
            f"norm: ord must be a supported vector norm ('euclidean', a number > 0, inf), "
            f"got {order!r}"
        )
    return order, axes, matrix


def _norm_infer(attrs, x):
    need_float("norm", x)
    _, axes, _ = norm_order(attrs, len(x.shape))
    return reduced_shape(x.shape, axes, bool(attrs.get("keepdims"))), x.dtype


def _norm_expand(b, attrs, x):
    # tf.norm: every order keeps the reduced dims, then squeezes them away
    shape = b.shape(x)
    order, axes, matrix = norm_order(attrs, len(shape))
    first = None if axes is None else axes[0]
    if order in EUCLIDEAN:
        r = b.sqrt(b.sum(b.mul(x, x), axis=axes, keepdims=True))  # x * conj(x)
    elif order == 1.0:
        r = b.sum(b.abs(x), axis=first, keepdims=True)
        if matrix:  # the largest column sum
            r = b.max(r, axis=axes[1], keepdims=True)
    elif order == math.inf:
        r = b.abs(x)
        if matrix:  # the largest row sum
            r = b.sum(r, axis=axes[1], keepdims=True)
        r = b.max(r, axis=first, keepdims=True)
    else:  # pow(sum(pow(|x|, p)), 1 / p)
        powered = b.pow(b.abs(x), b.const(order, like=x))
        r = b.sum(powered, axis=axes, keepdims=True)
        r = b.pow(r, b.const(1.0 / order, like=x))
    if not attrs.get("keepdims"):
        r = b.reshape(r, shape=reduced_shape(shape, axes, False))
    return r


def _norm_words(node):
    order = node.attrs.get("ord", "euclidean")
    if order == math.inf:
        return (
            "{text} passes the gradient only to the largest |{arg}| (and abs'(0) = 0): "
            "{count} get none",
            "{op} in {entry} {line} passes the gradient only to the largest elements",
        )
    if order == 1.0:
        why = "abs'(0) = 0"
    elif order in EUCLIDEAN:
        why = "its derivative is x / norm"
    else:
        why = "its derivative is sign(x) |x|^(p-1) / norm^(p-1)"
    return (
        "{text} passes no gradient where {arg} is 0 (" + why + "): {count}",
        "{op} in {entry} {line} passes no gradient where its input is 0",
    )


composite(
    "norm",
    _norm_expand,
    _norm_infer,
    attrs=(
        Attr("ord", AttrKind.NUMBER_OR_STR, "euclidean"),
        Attr("axis", AttrKind.AXES),
        Attr("keepdims", AttrKind.BOOL, False),
    ),
    behavior=KINK,
    transport=Transport.REDUCE,
    inactive=_norm_words,
    convention=tie_facts.norm(EUCLIDEAN, lambda node, ndim: norm_order(node.attrs, ndim)[:2]),
    doc="tf.norm(x, ord='euclidean', axis=None, keepdims=false): vector norms (ord "
    "'euclidean', 1, inf or any p > 0) and, with a 2-element axis, matrix norms ('fro', 1, inf)",
)


# --- l2_normalize ----------------------------------------------------------------------------
def _l2_infer(attrs, x):
    need_float("l2_normalize", x)
    _axes(attrs, len(x.shape), "l2_normalize")
    return x.shape, x.dtype


def _l2_expand(b, attrs, x):
    # tf.math.l2_normalize: x * rsqrt(maximum(sum(square(x), axis, keepdims), epsilon))
    axes = _axes(attrs, len(b.shape(x)), "l2_normalize")
    square_sum = b.sum(b.square(x), axis=axes, keepdims=True)
    epsilon = b.const(float(attrs.get("epsilon", 1e-12)), like=x)
    return b.mul(x, b.rsqrt(b.maximum(square_sum, epsilon)))


composite(
    "l2_normalize",
    _l2_expand,
    _l2_infer,
    attrs=(Attr("axis", AttrKind.AXES), Attr("epsilon", AttrKind.FLOAT, 1e-12)),
    transport=Transport.OPAQUE,
    cancels=True,
    doc="tf.math.l2_normalize(x, axis=None, epsilon=1e-12): x / sqrt(max(sum(x ** 2), "
    "epsilon)) along axis",
)


# --- logmeanexp ------------------------------------------------------------------------------
def _lme_infer(attrs, x):
    need_float("logmeanexp", x)
    axes = _axes(attrs, len(x.shape), "logmeanexp")
    return reduced_shape(x.shape, axes, bool(attrs.get("keepdims"))), x.dtype


def _lme_expand(b, attrs, x):
    # tfp.math.reduce_logmeanexp: logsumexp(x) - log(n), n the number of reduced elements
    shape = b.shape(x)
    axes = _axes(attrs, len(shape), "logmeanexp")
    count = math.prod(shape[a] for a in (range(len(shape)) if axes is None else axes))
    keepdims = bool(attrs.get("keepdims"))
    lse = b.logsumexp(x, axis=axes, keepdims=keepdims)
    return b.sub(lse, b.log(b.const(float(count), like=x)))


composite(
    "logmeanexp",
    _lme_expand,
    _lme_infer,
    attrs=(Attr("axis", AttrKind.AXES), Attr("keepdims", AttrKind.BOOL, False)),
    transport=Transport.REDUCE,
    doc="log(mean(exp(x))) along axis, as logsumexp(x) - log(n) (tfp.math.reduce_logmeanexp; "
    "TensorFlow's core has no such op)",
)
