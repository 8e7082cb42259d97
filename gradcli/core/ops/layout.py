"""Layout ops that only move elements: squeeze, expand_dims, reverse (flip)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from gradcli.core.ops.infer import fmt, normalize_axes
from gradcli.core.ops.registry import Attr, AttrKind, Op, ShapeError, Transport, register


def _reshape_back(b, n, g):
    return b.reshape(g, shape=b.shape(n.inputs[0]))


# --- squeeze --------------------------------------------------------------------------------
def _squeeze_axes(attrs, shape):
    """The axes squeeze removes: the given ones (each of size 1) or every size-1 axis."""
    axes = normalize_axes("squeeze", attrs.get("axis"), len(shape))
    if axes is None:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    for a in axes:
        if shape[a] != 1:
            raise ShapeError(
                f"squeeze: cannot squeeze axis {a} of size {shape[a]} (shape {fmt(shape)}); "
                "only axes of size 1 can be removed"
            )
    return axes


def _squeeze_infer(attrs, x):
    axes = _squeeze_axes(attrs, x.shape)
    return tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype


def _squeeze_bind(attrs):
    def squeeze(x):
        x = np.asarray(x)
        return np.squeeze(x, axis=_squeeze_axes(attrs, x.shape))

    return squeeze


register(
    Op(
        "squeeze",
        _squeeze_infer,
        accepts="any",
        bind=_squeeze_bind,
        grads=(_reshape_back,),
        public=True,
        arity=1,
        attrs=(Attr("axis", AttrKind.AXES),),
        sympy=lambda sp, attrs, args, values: _squeeze_bind(attrs)(args[0]),
        moves=True,
        transport=Transport.RESHAPE,
        doc="removes size-1 axes (all, or the given ones), tf.squeeze",
    )
)


# --- expand_dims ------------------------------------------------------------------------------
def _expand_axis(attrs, rank):
    """expand_dims's axis as a position in the result (axis in [-rank - 1, rank])."""
    axis = attrs["axis"]
    if not -rank - 1 <= axis <= rank:
        raise ShapeError(
            f"expand_dims: axis {axis} is out of range for a tensor of rank {rank} "
            f"(it must be in [{-rank - 1}, {rank}])"
        )
    return axis % (rank + 1)


def _expand_dims_infer(attrs, x):
    shape = list(x.shape)
    shape.insert(_expand_axis(attrs, len(shape)), 1)
    return tuple(shape), x.dtype


def _expand_dims_bind(attrs):
    def expand_dims(x):
        x = np.asarray(x)
        return np.expand_dims(x, _expand_axis(attrs, x.ndim))

    return expand_dims


register(
    Op(
        "expand_dims",
        _expand_dims_infer,
        accepts="any",
        bind=_expand_dims_bind,
        grads=(_reshape_back,),
        public=True,
        arity=1,
        attrs=(Attr("axis", AttrKind.AXIS, required=True),),
        sympy=lambda sp, attrs, args, values: _expand_dims_bind(attrs)(args[0]),
        moves=True,
        transport=Transport.RESHAPE,
        doc="inserts a size-1 axis at `axis`, tf.expand_dims",
    )
)


# --- reverse (flip) ---------------------------------------------------------------------------
def _reverse_axes(attrs, rank):
    return normalize_axes("reverse", attrs["axis"], rank)


def _reverse_infer(attrs, x):
    _reverse_axes(attrs, len(x.shape))
    return x.shape, x.dtype


def _reverse_bind(attrs):
    def reverse(x):
        x = np.asarray(x)
        axes = _reverse_axes(attrs, x.ndim)
        return np.flip(x, axis=axes) if axes else x

    return reverse


def _reverse_grad(b, n, g):
    return b.reverse(g, axis=n.attrs["axis"])


def _reverse_route(node, j, value_of):
    """The same elements, permuted: output element t is the input element flip(ids)[t]."""
    shape = np.shape(value_of(node.inputs[0]))
    ids = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    into = np.asarray(_reverse_bind(node.attrs)(ids)).ravel()
    return into, np.arange(into.size)


REVERSE = register(
    Op(
        "reverse",
        _reverse_infer,
        accepts="any",
        bind=_reverse_bind,
        grads=(_reverse_grad,),
        public=True,
        arity=1,
        attrs=(Attr("axis", AttrKind.AXES, required=True),),
        sympy=lambda sp, attrs, args, values: _reverse_bind(attrs)(args[0]),
        moves=True,
        # a permutation of the elements that no fixed transport describes: the route map
        transport=Transport.ROUTE,
        route=_reverse_route,
        doc="reverses the order along the given axes, tf.reverse (also named flip)",
    )
)
register(replace(REVERSE, name="flip", doc="reverses the order along the given axes, as reverse"))
