"""Reductions, softmax and cumulative ops, with TensorFlow's gradient rules.

Reduction rules receive g with the reduction's exact output shape and return it reshaped
to the kept-dims shape: it broadcasts back over the reduced axes lazily, and `fit` turns
it into the input's shape only when something needs the full array.
"""

from __future__ import annotations

import warnings

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.infer import need_float, need_numeric, normalize_axes, reduced_shape
from gradcli.core.ops.registry import (
    CUT,
    KINK,
    MASK,
    SMOOTH,
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.sym import finite_max, number, reduce_rows


def _axes(node, b):
    """The reduction's axes as a sorted tuple (all axes when axis is None)."""
    ndim = len(b.shape(node.inputs[0]))
    axes = normalize_axes(node.op, node.attrs.get("axis"), ndim)
    return tuple(range(ndim)) if axes is None else axes


def _kept(b, node, i: int) -> int:
    """Node i (shaped like the reduction's output) reshaped to keep the reduced axes."""
    if node.attrs.get("keepdims") or b.shape(i) == ():
        return i
    shape = reduced_shape(b.shape(node.inputs[0]), _axes(node, b), keepdims=True)
    return b.reshape(i, shape=shape)


def reduction(
    name, forward, rule, *, floats=False, behavior=SMOOTH, result=None, row=None, doc="", **facts
):
    """Register a public reduction taking axis= and keepdims=.

    row(sp, elements, values) is its SymPy translation for one reduced row.
    """

    def infer(attrs, x):
        (need_float if floats else need_numeric)(name, x)
        axes = normalize_axes(name, attrs.get("axis"), len(x.shape))
        if name in ("argmax", "argmin") and x.size == 0:
            raise ShapeError(f"{name} of an empty tensor")
        return reduced_shape(x.shape, axes, bool(attrs.get("keepdims"))), result or x.dtype

    def bind(attrs):
        axis = attrs.get("axis")
        axis = tuple(axis) if isinstance(axis, list) else axis
        keepdims = bool(attrs.get("keepdims"))
        return lambda x: forward(x, axis, keepdims)

    return register(
        Op(
            name,
            infer,
            bind=bind,
            grads=(rule,),
            behavior=behavior,
            public=True,
            arity=1,
            attrs=(Attr("axis", AttrKind.AXES), Attr("keepdims", AttrKind.BOOL, False)),
            transport=Transport.REDUCE,
            doc=doc,
            accepts="float" if floats else "number",
            sympy=None if row is None else _rows_sympy(name, row),
            **facts,
        )
    )


def _one_each(x, axis) -> bool:
    """Whether every output element reduces exactly one input element."""
    axes = range(x.ndim) if axis is None else np.atleast_1d(axis)
    return all(x.shape[a] == 1 for a in axes)


def _rows_sympy(name, row):
    def translate(sp, attrs, args, values):
        return reduce_rows(name, attrs, args[0], values[0], lambda xs, vs: row(sp, xs, vs))

    return translate


def _sum(x, axis, keepdims):
    x = np.asarray(x)
    out = np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    # TensorFlow copies the input when each output element reduces one element (so
    # sum([-0.0]) is -0.0); otherwise its sum starts from +0.0, as numpy's does
    return (x.reshape(out.shape) if _one_each(x, axis) else out)[()]


def _sum_batched(node, probed):
    """sum over the same axes shifted past the leading seed axis (all but it for None)."""
    axis, keepdims = node.attrs.get("axis"), bool(node.attrs.get("keepdims"))

    def forward(x):
        ndim = x.ndim - 1
        axes = normalize_axes("sum", axis, ndim)
        return _sum(x, tuple(a + 1 for a in (range(ndim) if axes is None else axes)), keepdims)

    return forward


reduction(
    "sum",
    _sum,
    lambda b, n, g: _kept(b, n, g),
    row=lambda sp, xs, vs: sp.Add(*xs),
    overflows=True,
    batched=_sum_batched,
)


def _mean_grad(b, n, g):
    x = n.inputs[0]
    count = 1
    for a in _axes(n, b):
        count *= b.shape(x)[a]
    return b.div(_kept(b, n, g), b.const(float(count), like=x))


def _mean_row(sp, xs, vs):
    return sp.Add(*xs) / len(xs) if xs else number(sp, np.nan)  # 0 / 0 over no elements


def _mean(x, axis, keepdims):
    # TensorFlow's mean over no elements is 0 / 0 = nan, as numpy's, minus numpy's warning
    x = np.asarray(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = np.mean(x, axis=axis, keepdims=keepdims)
    return (x.reshape(out.shape) if _one_each(x, axis) else out)[()]  # as sum: mean([-0.0])


reduction("mean", _mean, _mean_grad, floats=True, row=_mean_row, overflows=True)


def _extreme_grad(b, n, g):
    # the gradient is split evenly among the elements equal to the extreme ([1,3,3] -> [0,.5,.5])
    x = n.inputs[0]
    indicators = b.cast(b.equal(x, _kept(b, n, n.id)), dtype=b.dtype(x))
    count = b.sum(indicators, axis=_axes(n, b), keepdims=True)
    return b.mul(b.div(indicators, count), _kept(b, n, g))


def _extreme_row(pick):
    def row(sp, xs, vs):
        # the mean of the elements tied at the extreme: a tie splits the gradient evenly
        if not xs:  # over no elements: the identity (-inf for max), a constant
            return number(sp, -np.inf if pick is np.max else np.inf)
        m = pick(vs)
        if m != m:
            return number(sp, m)
        tied = [x for x, v in zip(xs, vs) if v == m]
        return sp.Add(*tied) / len(tied)

    return row


def _extreme_at_point(pick):
    def at_point(node, args, raw):
        # the mean of the elements tied at the extreme: a tie splits the gradient evenly
        axis = node.attrs.get("axis")
        axis = tuple(axis) if isinstance(axis, list) else axis
        x0 = np.asarray(raw[0])
        tied = (x0 == pick(x0, axis=axis, keepdims=True)).astype(np.float64)
        with np.errstate(all="ignore"):
            weights = tied / np.sum(tied, axis=axis, keepdims=True)
        keep = bool(node.attrs.get("keepdims"))
        return np.sum(np.asarray(args[0]) * weights, axis=axis, keepdims=keep)[()]

    return at_point


def _lowest(dtype):
    """The identity of max: -inf, or the smallest integer of dtype (TensorFlow's empty max)."""
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _extreme(fn, identity):
    def forward(x, axis, keepdims):
        # over no elements TensorFlow gives the identity (max([]) = -inf), numpy an error
        x = np.asarray(x)
        extra = {"initial": identity(x.dtype)} if x.size == 0 else {}
        return fn(x, axis=axis, keepdims=keepdims, **extra)[()]

    return forward


reduction(
    "max",
    _extreme(np.max, _lowest),
    _extreme_grad,
    behavior=KINK,
    row=_extreme_row(np.max),
    at_point=_extreme_at_point(np.max),
    convention=tie_facts.extreme(largest=True),
    inactive=(
        "max({arg}) passes the gradient only to its largest element(s): {count} get none",
        "max in {entry} {line} passes the gradient only to the largest element(s)",
    ),
)
reduction(
    "min",
    _extreme(np.min, _highest),
    _extreme_grad,
    behavior=KINK,
    row=_extreme_row(np.min),
    at_point=_extreme_at_point(np.min),
    convention=tie_facts.extreme(largest=False),
    inactive=(
        "min({arg}) passes the gradient only to its smallest element(s): {count} get none",
        "min in {entry} {line} passes the gradient only to the smallest element(s)",
    ),
)


def _prod_grad(b, n, g):
    # TensorFlow's method, exact where x has zeros: the product of all other elements is
    # (exclusive cumprod from the left) * (exclusive cumprod from the right) along the
    # reduced elements, flattened into one leading axis.
    x = n.inputs[0]
    shape = b.shape(x)
    axes = _axes(n, b)
    other = tuple(i for i in range(len(shape)) if i not in axes)
    perm = axes + other
    moved = x if perm == tuple(range(len(shape))) else b.transpose(x, axes=perm)
    moved_shape = b.shape(moved)
    reduced_num = int(np.prod([shape[a] for a in axes], dtype=np.int64))
    other_num = int(np.prod([shape[a] for a in other], dtype=np.int64))
    flat = b.reshape(moved, shape=(reduced_num, other_num))
    left = b.cumprod(flat, axis=0, exclusive=True)
    right = b.cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = b.reshape(b.mul(left, right), shape=moved_shape)
    if moved != x:
        others = b.transpose(others, axes=tuple(np.argsort(perm).tolist()))
    return b.mul(_kept(b, n, g), others)


def _prod(x, axis, keepdims):
    x = np.asarray(x)
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)[()]


reduction(
    "prod",
    _prod,
    _prod_grad,
    behavior=MASK,
    row=lambda sp, xs, vs: sp.Mul(*xs),
    overflows=True,
)


def _logsumexp(x, axis, keepdims):
    # TensorFlow's reduce_logsumexp: shift by the max where it is finite
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        raw_max = _extreme(np.max, _lowest)(x, axis, True)
        shift = np.where(np.isfinite(raw_max), raw_max, np.zeros((), x.dtype))
        out = np.log(np.sum(np.exp(x - shift), axis=axis, keepdims=True)) + shift
    if not keepdims:
        out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return out.astype(x.dtype, copy=False)[()]


def _logsumexp_grad(b, n, g):
    # TensorFlow differentiates its own graph, log(sum(exp(x - shift))) + shift with the
    # shift held constant: (g * (1 / s)) * exp(x - shift). Mathematically exp(x - logsumexp),
    # but x - logsumexp loses the low bits of x when |logsumexp| is large (~100 ulps at 1000).
    x = n.inputs[0]
    axes = _axes(n, b)
    raw_max = b.max(x, axis=axes, keepdims=True)
    finite = b.less(b.abs(raw_max), b.const(np.inf, like=x))
    shift = b.stop_gradient(b.where(finite, raw_max, b.const(0.0, like=x)))
    shifted_exp = b.exp(b.sub(x, shift))
    total = b.sum(shifted_exp, axis=axes, keepdims=True)
    return b.mul(b.mul(_kept(b, n, g), b.div(b.const(1.0, like=x), total)), shifted_exp)


def _logsumexp_row(sp, xs, vs):
    # shifted by the (constant) max at the point, as the forward: the same function
    m = number(sp, finite_max(vs))
    return sp.log(sp.Add(*[sp.exp(x - m) for x in xs])) + m


reduction("logsumexp", _logsumexp, _logsumexp_grad, floats=True, row=_logsumexp_row, overflows=True)


def _arg(fn):
    def forward(x, axis, keepdims):
        return fn(x, axis=0 if axis is None else axis)[()]

    return forward


def _arg_infer(name):
    def infer(attrs, x):
        need_numeric(name, x)
        if x.size == 0:
            raise ShapeError(f"{name} of an empty tensor")
        axis = attrs.get("axis", 0)
        if not isinstance(axis, int):
            raise ShapeError(f"{name}: axis must be one integer")
        if len(x.shape) == 0:
            raise ShapeError(f"{name} needs a tensor of rank 1 or more, got a scalar")
        axes = normalize_axes(name, axis, len(x.shape))
        out = attrs.get("output_type") or "int64"
        if out not in ARG_TYPES:
            raise ShapeError(f"{name}: output_type must be 'int32' or 'int64', got '{out}'")
        return reduced_shape(x.shape, axes, False), out

    return infer


ARG_TYPES = ("int32", "int64")  # tf.argmax's output_type


def _arg_forward(fn, attrs):
    out = np.dtype(attrs.get("output_type") or "int64")
    return lambda x: np.asarray(_arg(fn)(x, attrs.get("axis", 0), False), dtype=out)[()]


# argmax/argmin reduce axis 0 by default, as tf.argmax; the result is int64 (or output_type)
# and cuts gradients
for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register(
        Op(
            _name,
            _arg_infer(_name),
            bind=lambda attrs, fn=_fn: _arg_forward(fn, attrs),
            grads=(None,),
            behavior=CUT,
            public=True,
            arity=1,
            attrs=(Attr("axis", AttrKind.AXIS, 0), Attr("output_type", AttrKind.STR)),
        )
    )
