"""Ops that pick along one axis: take_along_axis (tf.experimental.numpy), top_k and
top_k_indices (tf.math.top_k's values and indices), sort and argsort (tf.sort, tf.argsort).

Their gradients put the upstream gradient back where each element came from: the
internal `take_along_axis_grad` node adds the slices of g into zeros along the axis, in
the order of the indices (TensorFlow's scatter_nd and UnsortedSegmentSum), so repeated
indices of take_along_axis sum and an element top_k never picks gets +0.

Order, as TensorFlow's TopK kernel: descending, ties to the lower index (-0.0 ties with
0.0); tf.sort's ascending order is top_k of -x, negated back, so ties keep their order too
and its gradient is -scatter(-g) (a zero gradient comes back as -0.0, as TensorFlow's).
TensorFlow's comparisons leave NaN unordered, and its result then depends on the sorting
algorithm's path (which elements top_k keeps included); gradcli orders NaN above +inf.
top_k with sorted=false returns TensorFlow's elements in descending order: for 1 < k < n
TensorFlow returns them in the order its heap holds them.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.indexing import known
from gradcli.core.ops.infer import fmt, need_numeric, normalize_axes
from gradcli.core.ops.registry import CUT, KINK, Attr, AttrKind, Op, ShapeError, Transport, register


def _flat_ids(shape) -> np.ndarray:
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)


# --- take_along_axis -----------------------------------------------------------------------------
def _along_shapes(attrs, xshape, ishape) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """(axis, x broadcast, result shape): the axes other than `axis` broadcast together."""
    if len(xshape) == 0:
        raise ShapeError("take_along_axis: x must be at least a vector, got a scalar")
    if len(ishape) != len(xshape):
        raise ShapeError(
            f"take_along_axis: indices {fmt(ishape)} must have the rank of x {fmt(xshape)}"
        )
    axis = normalize_axes("take_along_axis", attrs["axis"], len(xshape))[0]
    out = []
    for k, (a, b) in enumerate(zip(xshape, ishape)):
        if k != axis and a != b and 1 not in (a, b):
            raise ShapeError(
                f"take_along_axis: x {fmt(xshape)} and indices {fmt(ishape)} do not broadcast "
                f"outside axis {axis}"
            )
        out.append(b if k == axis else max(a, b) if 0 not in (a, b) else 0)
    full = tuple(xshape[axis] if k == axis else d for k, d in enumerate(out))
    return axis, full, tuple(out)


def _wrapped(ids: np.ndarray, size: int, axis: int) -> np.ndarray:
    """Negative indices counted from the end (as tf.experimental.numpy), range checked."""
    ids = np.where(ids < 0, ids + size, ids)
    bad = (ids < 0) | (ids >= size)
    if np.any(bad):
        # TensorFlow gathers from x with the axis swapped with the last, the rest flattened
        rows = np.swapaxes(bad, axis, -1).reshape(-1, bad.shape[axis])
        r, c = (int(v) for v in np.argwhere(rows)[0])
        value = np.swapaxes(ids, axis, -1).reshape(rows.shape)[r, c]
        raise IndexError(f"take_along_axis: indices[{r},{c}] = {value} is not in [0, {size})")
    return ids


def _take_bind(attrs):
    def take_along_axis(x, indices):
        x, ids = np.asarray(x), np.asarray(indices)
        axis, full, out = _along_shapes(attrs, x.shape, ids.shape)
        ids = _wrapped(np.broadcast_to(ids, out), x.shape[axis], axis)
        return np.take_along_axis(np.broadcast_to(x, full), ids, axis)

    return take_along_axis


def _take_infer(attrs, x, indices):
    axis, _, out = _along_shapes(attrs, x.shape, indices.shape)
    value = known(indices)
    if value is not None:
        try:
            _wrapped(np.broadcast_to(value, out), x.shape[axis], axis)
        except IndexError as exc:
            raise ShapeError(str(exc)) from None
    return out, x.dtype


def _take_grad(b, n, g):
    x, indices = n.inputs
    axis, full, _ = _along_shapes(n.attrs, b.shape(x), b.shape(indices))
    return b.take_along_axis_grad(g, indices, shape=full, axis=axis)


def _take_route(node, j, value_of):
    """Each output element reads one element of x: take x's flat ids along the axis."""
    x, indices = (value_of(i) for i in node.inputs)
    picked = _take_bind(node.attrs)(_flat_ids(np.shape(x)), indices).ravel()
    return picked, np.arange(picked.size)


register(
    Op(
        "take_along_axis",
        _take_infer,
        accepts="any",
        index_inputs=(1,),
        bind=_take_bind,
        grads=(_take_grad, None),
        public=True,
        arity=2,
        attrs=(Attr("axis", AttrKind.AXIS, required=True),),
        sympy=lambda sp, attrs, args, values: _take_bind(attrs)(args[0], values[1]),
        moves=True,
        transport=Transport.ROUTE,
        route=_take_route,
        doc="tf.experimental.numpy.take_along_axis: x's elements at indices along axis",
    )
)


def _take_grad_infer(attrs, g, indices):
    return tuple(attrs["shape"]), g.dtype


def _scatter_along_bind(attrs):
    """take_along_axis's transpose: g added into zeros of `shape` at the indices along the
    axis, repeated indices summed in their order."""
    shape, axis = tuple(attrs["shape"]), attrs["axis"]

    def take_along_axis_grad(g, indices):
        g = np.asarray(g)
        ids = _wrapped(np.broadcast_to(np.asarray(indices), g.shape), shape[axis], axis)
        out = np.full(shape, 0 if g.dtype == object else np.zeros((), g.dtype), dtype=g.dtype)
        if g.size:
            grid = list(np.indices(g.shape, sparse=True))
            grid[axis] = ids
            np.add.at(out, tuple(grid), g)
        return out

    return take_along_axis_grad


def _take_grad_route(node, j, value_of):
    """Input g (the gather's output shape): element t is fed by output element picked[t]."""
    attrs = {"axis": node.attrs["axis"]}
    picked = _take_bind(attrs)(_flat_ids(node.shape), value_of(node.inputs[1])).ravel()
    return np.arange(picked.size), picked


register(
    Op(
        "take_along_axis_grad",
        _take_grad_infer,
        bind=_scatter_along_bind,
        grads=(lambda b, n, g: b.take_along_axis(g, n.inputs[1], axis=n.attrs["axis"]), None),
        arity=2,
        sympy=lambda sp, attrs, args, values: _scatter_along_bind(attrs)(args[0], values[1]),
        transport=Transport.ROUTE,
        route=_take_grad_route,
    )
)


# --- the order: argsort, sort, top_k ----------------------------------------------------------
class _Node:
    """A stand-in node for the at_point helpers called from a SymPy translation."""

    def __init__(self, attrs):
        self.attrs = attrs


def _order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort along axis (ties keep their order, -0.0 ties with 0.0), NaN above +inf."""
    x = np.asarray(x)
    if x.dtype.kind == "f":
        nan = np.isnan(x)
        key = np.where(nan, 0, -x if descending else x)
        # lexsort sorts by the last key first: NaN to the front (descending) or the back
        return np.lexsort((key, ~nan if descending else nan), axis=axis).astype(np.int32)
    key = ~x if descending else x  # ~x = -x - 1 reverses the order of integers, no overflow
    return np.argsort(key, axis=axis, kind="stable").astype(np.int32)


_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _sort_axis(name: str, attrs, x) -> int:
    need_numeric(name, x)
    if len(x.shape) == 0:
        raise ShapeError(f"{name} needs a tensor of rank 1 or more, got a scalar")
    direction = attrs.get("direction", "ASCENDING")
    if direction not in _DIRECTIONS:
        raise ShapeError(
            f"{name}: direction must be 'ASCENDING' or 'DESCENDING', got '{direction}'"
        )
    return normalize_axes(name, attrs.get("axis", -1), len(x.shape))[0]


def _argsort_bind(attrs):
    descending = attrs.get("direction", "ASCENDING") == "DESCENDING"

    def argsort(x):
        x = np.asarray(x)
        return _order(x, attrs.get("axis", -1) % x.ndim, descending)

    return argsort


def _sort_infer(name, dtype=None):
    def infer(attrs, x):
        _sort_axis(name, attrs, x)
        return x.shape, dtype or x.dtype

    return infer


_SORT_ATTRS = (Attr("axis", AttrKind.AXIS, -1), Attr("direction", AttrKind.STR, "ASCENDING"))
register(
    Op(
        "argsort",
        _sort_infer("argsort", "int32"),
        bind=_argsort_bind,
        behavior=CUT,
        public=True,
        arity=1,
        attrs=(*_SORT_ATTRS, Attr("stable", AttrKind.BOOL, False)),
        doc="tf.argsort (int32): the positions that sort x along axis; ties keep their order",
    )
)


def _sort_bind(attrs):
    order = _argsort_bind(attrs)

    def sort(x):
        x = np.asarray(x)
        return np.take_along_axis(x, order(x), attrs.get("axis", -1) % x.ndim)

    return sort


def _sorted_at_point(node, args, raw):
    """The sort frozen at the point's order (ties keep theirs: TensorFlow's gradient)."""
    x = np.asarray(args[0])
    order = _argsort_bind(node.attrs)(raw[0])
    return np.take_along_axis(x, order, node.attrs.get("axis", -1) % x.ndim)


def _sort_grad(b, n, g):
    x = n.inputs[0]
    axis = n.attrs.get("axis", -1) % len(b.shape(x))
    direction = n.attrs.get("direction", "ASCENDING")
    order = b.argsort(x, axis=axis, direction=direction)
    if direction == "DESCENDING":
        return b.take_along_axis_grad(g, order, shape=b.shape(x), axis=axis)
    # tf.sort ascending is -top_k(-x): the scatter of -g, negated
    return b.neg(b.take_along_axis_grad(b.neg(g), order, shape=b.shape(x), axis=axis))


def _sort_route(node, j, value_of):
    """Output element t comes from the input element its order names."""
    ids = _flat_ids(np.shape(value_of(node.inputs[0])))
    axis = node.attrs.get("axis", -1) % ids.ndim
    order = _argsort_bind(node.attrs)(value_of(node.inputs[0]))
    picked = np.take_along_axis(ids, order, axis).ravel()
    return picked, np.arange(picked.size)


register(
    Op(
        "sort",
        _sort_infer("sort"),
        bind=_sort_bind,
        grads=(_sort_grad,),
        behavior=KINK,
        public=True,
        arity=1,
        attrs=_SORT_ATTRS,
        sympy=lambda sp, attrs, args, values: _sorted_at_point(_Node(attrs), [args[0]], values),
        moves=True,
        at_point=_sorted_at_point,
        convention=tie_facts.sort,
        transport=Transport.ROUTE,
        route=_sort_route,
        inactive=(
            "{text} passes each element its own gradient: {count} get none",
            "sort in {entry} {line} passes no gradient there",
        ),
        doc="tf.sort: x sorted along axis; the gradient goes back to each element's position",
    )
)


def _top_k_check(attrs, x) -> int:
    need_numeric("top_k", x)
    k = attrs.get("k", 1)
    if k < 0:
        raise ShapeError(f"top_k: k must be >= 0, got {k}")
    if len(x.shape) == 0:
        raise ShapeError("top_k: input must be at least a vector, got a scalar")
    if x.shape[-1] < k:
        raise ShapeError(
            f"top_k: input must have at least k columns. Had {x.shape[-1]}, needed {k}"
        )
    return k


def _top_k_infer(dtype=None):
    def infer(attrs, x):
        k = _top_k_check(attrs, x)
        return (*x.shape[:-1], k), dtype or x.dtype

    return infer


def _top_k_indices_bind(attrs):
    k = attrs.get("k", 1)
    return lambda x: _order(np.asarray(x), -1, descending=True)[..., :k]


def _top_k_at_point(node, args, raw):
    return np.take_along_axis(np.asarray(args[0]), _top_k_indices_bind(node.attrs)(raw[0]), -1)


def _top_k_bind(attrs):
    picks = _top_k_indices_bind(attrs)
    return lambda x: np.take_along_axis(np.asarray(x), picks(x), -1)


def _top_k_grad(b, n, g):
    # TensorFlow's _TopKGrad: g scattered into zeros of x's shape at the picked positions
    x = n.inputs[0]
    picked = b.top_k_indices(x, k=n.attrs.get("k", 1), sorted=n.attrs.get("sorted", True))
    return b.take_along_axis_grad(g, picked, shape=b.shape(x), axis=len(b.shape(x)) - 1)


def _top_k_route(node, j, value_of):
    x = value_of(node.inputs[0])
    picked = np.take_along_axis(_flat_ids(np.shape(x)), _top_k_indices_bind(node.attrs)(x), -1)
    return picked.ravel(), np.arange(picked.size)


_TOP_K_ATTRS = (Attr("k", AttrKind.AXIS, 1), Attr("sorted", AttrKind.BOOL, True))
register(
    Op(
        "top_k",
        _top_k_infer(),
        bind=_top_k_bind,
        grads=(_top_k_grad,),
        behavior=KINK,
        public=True,
        arity=1,
        attrs=_TOP_K_ATTRS,
        sympy=lambda sp, attrs, args, values: _top_k_at_point(_Node(attrs), [args[0]], values),
        moves=True,
        at_point=_top_k_at_point,
        convention=tie_facts.top_k,
        transport=Transport.ROUTE,
        route=_top_k_route,
        inactive=(
            "{text} passes the gradient only to the k largest elements: {count} get none",
            "top_k in {entry} {line} passes no gradient there",
        ),
        doc="tf.math.top_k(...).values: the k largest along the last axis, ties to lower index",
    )
)
register(
    Op(
        "top_k_indices",
        _top_k_infer("int32"),
        bind=_top_k_indices_bind,
        behavior=CUT,
        public=True,
        arity=1,
        attrs=_TOP_K_ATTRS,
        doc="tf.math.top_k(...).indices (int32): where the k largest are along the last axis",
    )
)
