"""Softmax cross entropy as TensorFlow's fused kernels compute it:
tf.nn.softmax_cross_entropy_with_logits and tf.nn.sparse_softmax_cross_entropy_with_logits.

Each kernel gives the loss per row along the class axis, sum(labels * (log(sum(exp(s)))
- s)) with s = logits - max(logits), and a second output, backprop = exp(s) / sum(exp(s))
- labels, which its gradient multiplies by the upstream gradient. The internal
`xent_backprop` and `sparse_xent_backprop` nodes compute that output with the kernel's
formula; their rules are TensorFlow's second-order ones (_SoftmaxCrossEntropyWithLogitsGrad
given grad_grad): the softmax derivative (gg - sum(gg * s)) * s to logits, and to labels
the loss's upstream gradient, which is zeros there, times -log_softmax. So d/dlabels of the
gradient to logits is 0 in TensorFlow (the true derivative is -1): its Hessian is not
symmetric, and gradcli's is TensorFlow's.

Labels whose rows do not sum to 1: the gradient to logits is still softmax - labels, where
the derivative of the loss is sum(labels) * softmax - labels (TensorFlow's documentation
says such a gradient is incorrect). The references (SymPy and finite differences) take
TensorFlow's convention: they differentiate lse(z) - sum(l * z) + (sum(l) - 1) * lse(z0),
with lse(z0) = logsumexp(logits) held at its value at the point. It has the loss's value
and TensorFlow's gradient to both inputs there.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops.indexing import known
from gradcli.core.ops.infer import fmt, need_float, normalize_axes, reduced_shape
from gradcli.core.ops.reduce import _extreme, _lowest
from gradcli.core.ops.registry import (
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.sym import finite_max, number

DENSE = "softmax_cross_entropy"
SPARSE = "sparse_softmax_cross_entropy"


def _axis(attrs, ndim: int) -> int:
    return attrs.get("axis", -1) % ndim


def _parts(logits, axis: int):
    """The kernel's shifted logits s = logits - max and sum(exp(s)), kept dims."""
    s = logits - _extreme(np.max, _lowest)(logits, axis, True)
    return s, np.sum(np.exp(s), axis=axis, keepdims=True)


def _row_lse(z, axis: int):
    """logsumexp along axis, shifted by the row's finite max (the references' lse)."""
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(all="ignore"):
        top = np.max(z, axis=axis, keepdims=True, initial=-np.inf)
        shift = np.where(np.isfinite(top), top, 0.0)
        return np.squeeze(np.log(np.sum(np.exp(z - shift), axis=axis, keepdims=True)) + shift, axis)


def row_route(shape, full, axis: int):
    """Explain's map (Op.route) for a loss per row along `axis` of the shape `full`: the
    input element each element of `full` reads (the input is broadcast from `shape`), and
    the loss element it feeds."""
    full = tuple(full)
    size = math.prod(full)
    into = np.broadcast_to(np.arange(math.prod(shape), dtype=np.int64).reshape(shape), full)
    kept = list(full)
    kept[axis] = 1
    rows = np.arange(math.prod(kept), dtype=np.int64).reshape(kept)
    src = np.broadcast_to(rows, full)
    return into.reshape(size), src.reshape(size)


def dense_route(node, j, value_of):
    shape = np.shape(value_of(node.inputs[j]))
    return row_route(shape, shape, _axis(node.attrs, len(shape)))


def _loss_grad_g(b, g, logits: int, axis: int) -> int:
    """The upstream gradient (the loss's shape) with the class axis put back (size 1)."""
    kept = list(b.shape(logits))
    kept[axis] = 1
    return b.reshape(g, shape=tuple(kept))


def _softmax_second_order(b, logits: int, gg: int, axis: int) -> int:
    # TensorFlow's grad_grad term: (gg - sum(gg * softmax)) * softmax, the softmax derivative
    s = b.softmax(logits, axis=axis)
    total = b.sum(b.mul(gg, s), axis=(axis,), keepdims=True)
    return b.mul(b.sub(gg, total), s)


# --- softmax_cross_entropy -------------------------------------------------------------------
def _dense_infer(attrs, labels, logits):
    need_float(DENSE, labels)
    need_float(DENSE, logits)
    if labels.shape != logits.shape:
        raise ShapeError(
            f"{DENSE}: labels and logits must have one shape, got {fmt(labels.shape)} and "
            f"{fmt(logits.shape)}"
        )
    if labels.dtype != logits.dtype:
        raise ShapeError(f"{DENSE}: mixed dtypes {labels.dtype} and {logits.dtype}")
    if not logits.shape:
        raise ShapeError(f"{DENSE} needs tensors of rank 1 or more (the class axis), got scalars")
    axes = normalize_axes(DENSE, attrs.get("axis", -1), len(logits.shape))
    return reduced_shape(logits.shape, axes, False), logits.dtype


def _dense_bind(attrs):
    def softmax_cross_entropy(labels, logits):
        labels, logits = np.asarray(labels), np.asarray(logits)
        axis = _axis(attrs, logits.ndim)
        with np.errstate(all="ignore"):
            s, total = _parts(logits, axis)
            # the kernel's loss: sum(labels * (log(sum(exp(s))) - s)) along the classes
            loss = np.sum(labels * (np.log(total) - s), axis=axis)
        return loss.astype(logits.dtype, copy=False)[()]

    return softmax_cross_entropy


def _dense_backprop_bind(attrs):
    def xent_backprop(labels, logits):
        labels, logits = np.asarray(labels), np.asarray(logits)
        with np.errstate(all="ignore"):
            s, total = _parts(logits, _axis(attrs, logits.ndim))
            return (np.exp(s) / total - labels)[()]  # the kernel divides (softmax multiplies)

    return xent_backprop


def _dense_to_labels(b, n, g):
    # TensorFlow's _BroadcastMul(grad_loss, -log_softmax(logits))
    axis = _axis(n.attrs, len(b.shape(n.inputs[1])))
    g = _loss_grad_g(b, g, n.inputs[1], axis)
    return b.mul(g, b.neg(b.log_softmax(n.inputs[1], axis=axis)))


def _dense_to_logits(b, n, g):
    # TensorFlow's _BroadcastMul(grad_loss, backprop), backprop the kernel's second output
    labels, logits = n.inputs
    axis = _axis(n.attrs, len(b.shape(logits)))
    g = _loss_grad_g(b, g, logits, axis)
    return b.mul(g, b.xent_backprop(labels, logits, axis=axis))


def _dense_sympy(sp, attrs, args, values):
    axis = _axis(attrs, args[1].ndim)
    labels, logits = (np.moveaxis(a, axis, -1) for a in args)
    zv = np.moveaxis(np.asarray(values[1], dtype=np.float64), axis, -1)
    lse0 = _row_lse(zv, -1)
    out = np.empty(logits.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        ls, zs = list(labels[idx]), list(logits[idx])
        if not zs:  # no classes: the loss is the constant 0
            out[idx] = sp.Integer(0)
            continue
        m = number(sp, finite_max(zv[idx]))
        lse = sp.log(sp.Add(*[sp.exp(z - m) for z in zs])) + m
        cross = sp.Add(*[lab * z for lab, z in zip(ls, zs)])
        # TensorFlow's gradient convention (module docstring): lse(z0) frozen at the point
        out[idx] = lse - cross + (sp.Add(*ls) - 1) * number(sp, lse0[idx])
    return out


def _dense_at_point(node, args, raw):
    labels, logits = (np.asarray(a, dtype=np.float64) for a in args)
    axis = _axis(node.attrs, logits.ndim)
    with np.errstate(all="ignore"):
        lse0 = _row_lse(raw[1], axis)
        frozen = (np.sum(labels, axis=axis) - 1.0) * lse0
        return (_row_lse(logits, axis) - np.sum(labels * logits, axis=axis) + frozen)[()]


register(
    Op(
        DENSE,
        _dense_infer,
        bind=_dense_bind,
        grads=(_dense_to_labels, _dense_to_logits),
        public=True,
        arity=2,
        attrs=(Attr("axis", AttrKind.AXIS, -1),),
        accepts="float",
        sympy=_dense_sympy,
        at_point=_dense_at_point,
        no_convention="smooth; at_point only freezes the labels' sum (not a kink)",
        transport=Transport.ROUTE,
        route=dense_route,
        overflows=True,
        doc="tf.nn.softmax_cross_entropy_with_logits(labels, logits, axis=-1): one loss per "
        "row along axis; gradient softmax - labels to logits, -log_softmax to labels",
    )
)


def _backprop_infer(attrs, labels, logits):
    return logits.shape, logits.dtype


def _dense_backprop_to_labels(b, n, g):
    # TensorFlow passes zeros for the loss's upstream gradient: zeros * -log_softmax
    logits = n.inputs[1]
    axis = _axis(n.attrs, len(b.shape(logits)))
    return b.mul(b.const(0.0, like=logits), b.neg(b.log_softmax(logits, axis=axis)))


def _dense_backprop_to_logits(b, n, g):
    logits = n.inputs[1]
    return _softmax_second_order(b, logits, g, _axis(n.attrs, len(b.shape(logits))))


register(
    Op(
        "xent_backprop",  # the kernel's second output: softmax(logits) - labels
        _backprop_infer,
        bind=_dense_backprop_bind,
        grads=(_dense_backprop_to_labels, _dense_backprop_to_logits),
        arity=2,
        attrs=(Attr("axis", AttrKind.AXIS, -1),),
        no_sympy="an internal kernel of gradient graphs, never in a forward graph",
        transport=Transport.OPAQUE,
    )
)


# --- sparse_softmax_cross_entropy ------------------------------------------------------------
def check_labels(opname: str, labels, depth: int) -> None:
    """TensorFlow's CPU error for a label outside [0, depth) (IndexError: the executor
    reports it at the node's position)."""
    labels = np.asarray(labels)
    bad = (labels < 0) | (labels >= depth)
    if np.any(bad):
        where = tuple(int(p) for p in np.argwhere(bad)[0])
        at = f"labels[{', '.join(map(str, where))}]" if where else "the label"
        raise IndexError(
            f"{opname}: {at} = {labels[where]} is outside the valid range of classes [0, {depth})"
        )


def _sparse_infer(attrs, labels, logits):
    need_float(SPARSE, logits)
    if not logits.shape:
        raise ShapeError(f"{SPARSE} needs logits of rank 1 or more (the class axis), got a scalar")
    if tuple(labels.shape) != tuple(logits.shape[:-1]):
        raise ShapeError(
            f"{SPARSE}: labels must have the shape of logits without its last axis, "
            f"{fmt(logits.shape[:-1])}, got {fmt(labels.shape)}"
        )
    depth = logits.shape[-1]
    if depth == 0 and labels.size:
        raise ShapeError(
            f"{SPARSE}: must have at least one class, got logits of shape {fmt(logits.shape)}"
        )
    value = known(labels)
    if value is not None:
        try:
            check_labels(SPARSE, value, depth)
        except IndexError as exc:
            raise ShapeError(str(exc)) from None
    return logits.shape[:-1], logits.dtype


def _sparse_parts(labels, logits):
    labels, logits = np.asarray(labels), np.asarray(logits)
    check_labels(SPARSE, labels, logits.shape[-1])
    s, total = _parts(logits, -1)
    return labels.astype(np.int64)[..., None], s, total


def _sparse(labels, logits):
    with np.errstate(all="ignore"):
        ids, s, total = _sparse_parts(labels, logits)
        # the kernel's loss: log(sum(exp(s))) - s[label] (the other classes add +0.0)
        picked = np.take_along_axis(s, ids, axis=-1)
        return (np.log(total) - picked)[..., 0].astype(s.dtype, copy=False)[()]


def _sparse_backprop(labels, logits):
    with np.errstate(all="ignore"):
        ids, s, total = _sparse_parts(labels, logits)
        # the kernel's backprop: exp(s) / sum(exp(s)), minus 1 at the label
        out = np.exp(s) / total
        hot = np.arange(s.shape[-1]) == ids
        return np.where(hot, out - out.dtype.type(1), out)[()]


def _sparse_to_logits(b, n, g):
    labels, logits = n.inputs
    axis = len(b.shape(logits)) - 1
    g = _loss_grad_g(b, g, logits, axis)
    return b.mul(g, b.sparse_xent_backprop(labels, logits))


def _sparse_sympy(sp, attrs, args, values):
    logits, zv = args[1], np.asarray(values[1], dtype=np.float64)
    ids = np.asarray(values[0]).astype(np.int64)
    out = np.empty(logits.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        zs = list(logits[idx])
        m = number(sp, finite_max(zv[idx]))
        out[idx] = sp.log(sp.Add(*[sp.exp(z - m) for z in zs])) + m - zs[int(ids[idx])]
    return out


def sparse_route(node, j, value_of):
    """Explain's map: every logit of a row is fed by that row's loss (labels get none)."""
    if j != 1:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    shape = np.shape(value_of(node.inputs[1]))
    return row_route(shape, shape, -1)


register(
    Op(
        SPARSE,
        _sparse_infer,
        forward=_sparse,
        grads=(None, _sparse_to_logits),
        public=True,
        arity=2,
        index_inputs=(0,),
        accepts="number",  # logits: infer asks for floats (the TensorFlow reader casts none)
        sympy=_sparse_sympy,
        transport=Transport.ROUTE,
        route=sparse_route,
        overflows=True,
        doc="tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits): integer labels, "
        "one per row of logits (its last axis); gradient softmax - one_hot(labels) to logits",
    )
)


def _sparse_backprop_to_logits(b, n, g):
    logits = n.inputs[1]
    return _softmax_second_order(b, logits, g, len(b.shape(logits)) - 1)


register(
    Op(
        "sparse_xent_backprop",  # the kernel's second output: softmax(logits) - one_hot(labels)
        _backprop_infer,
        forward=_sparse_backprop,
        grads=(None, _sparse_backprop_to_logits),
        arity=2,
        index_inputs=(0,),
        no_sympy="an internal kernel of gradient graphs, never in a forward graph",
        transport=Transport.OPAQUE,
    )
)
