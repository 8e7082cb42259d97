"""Segment reductions beyond the sums: segment_max, segment_min and segment_mean and their
unsorted forms (TensorFlow's SegmentMax, UnsortedSegmentMax, ...), with TensorFlow's
gradient rules.

Values, as TensorFlow's CPU kernels compute them:
- the unsorted kernels fold each segment's rows in order, from the dtype's lowest value
  (max) or highest (min), with acc = (acc > x ? acc : x): a NaN row resets the fold (a NaN
  last gives NaN), a tie goes to the later row (max(0.0, -0.0) is -0.0), and an empty
  segment, or one holding only -inf, gives the lowest finite value;
- the sorted kernels fold a segment of one row as a copy, and longer segments element by
  element as above, except in the columns Eigen reduces in packets (the first
  w - w % (32 / itemsize) of the w elements of a row), where NaN is skipped, a tie goes to
  the earlier row and an all-NaN column gives -inf; an id that never occurs gives 0;
- segment_mean adds the rows in order from +0.0 and divides by their number (one row is
  copied; an empty segment gives 0); unsorted_segment_mean is tf.math's composition,
  unsorted_segment_sum(data) / maximum(count, 1).

Gradients: max and min split g evenly among the elements equal to their segment's result
(TensorFlow's _SegmentMinOrMaxGrad), so a NaN segment passes none; the means pass
g / count to every row of a segment. Negative ids of the unsorted forms drop their rows.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops import tie_facts
from gradcli.core.ops.indexing import (
    _segment_route,
    _segment_shape,
    _sorted_ids,
    _unsorted_bind,
    known,
)
from gradcli.core.ops.infer import need_numeric
from gradcli.core.ops.registry import KINK, Attr, AttrKind, Op, ShapeError, Transport, register
from gradcli.core.ops.sym import apply, number

NUM_SEGMENTS = (Attr("num_segments", AttrKind.AXIS, required=True),)


# --- ids and shapes --------------------------------------------------------------------------
def check_ids(opname: str, ids, num: int) -> None:
    """TensorFlow's CPU error for an id past num_segments (an IndexError)."""
    ids = np.asarray(ids)
    bad = ids >= num
    if np.any(bad):
        where = tuple(int(p) for p in np.argwhere(bad)[0])
        raise IndexError(
            f"{opname}: segment_ids[{','.join(map(str, where))}] = {ids[where]} is out of "
            f"range [0, {num})"
        )


def _infer(opname: str, unsorted: bool, floats: bool = False):
    def infer(attrs, data, ids):
        if not floats:
            need_numeric(opname, data)
        if len(data.shape) == 0 and not unsorted:  # unsorted: scalar ids may take scalar data
            raise ShapeError(f"{opname}: data must have at least one dimension")
        value = known(ids)
        if unsorted:
            num = attrs["num_segments"]
            if num < 0:
                raise ShapeError(f"{opname}: num_segments must be >= 0, got {num}")
            if value is not None:
                try:
                    check_ids(opname, value, num)
                except IndexError as exc:
                    raise ShapeError(str(exc)) from None
        else:
            if value is None:
                raise ShapeError(
                    f"{opname}: segment_ids must be a literal or an input (its largest id sets "
                    f"the output's size); unsorted_{opname} takes num_segments"
                )
            num = _sorted_ids(value, opname)
        return _segment_shape(opname, data, ids, num), data.dtype

    return infer


def _rows(data, ids, num: int | None, opname: str):
    """(data as rows (n, w), each row's id, the kept rows' positions, num, the rest's shape):
    rows of negative ids are dropped; num is found from sorted ids when None."""
    x, ids = np.asarray(data), np.asarray(ids)
    if num is None:
        try:
            num = _sorted_ids(ids, opname)
        except ShapeError as exc:
            raise IndexError(exc.message) from None
    else:
        check_ids(opname, ids, num)
    rest = x.shape[ids.ndim :]
    rows = x.reshape(ids.size, math.prod(rest))
    seg = ids.reshape(-1).astype(np.int64)
    keep = np.flatnonzero(seg >= 0)
    return rows[keep], seg[keep], keep, num, rest


# --- max and min ------------------------------------------------------------------------------
def _flip(x: np.ndarray) -> np.ndarray:
    """An order-reversing bijection (-x, or ~x = -x - 1 for integers): min is max flipped."""
    return -x if x.dtype.kind == "f" else ~x


def _fold_max(xs, seg, num: int, unsorted: bool):
    """TensorFlow's segment max of the rows xs (see the module doc): (result, empty mask)."""
    n, w = xs.shape
    floats = xs.dtype.kind == "f"
    low = -np.inf if floats else np.iinfo(xs.dtype).min
    order = np.arange(n)[:, None]
    cols = np.arange(w)
    nan = np.isnan(xs) if floats else np.zeros(xs.shape, dtype=bool)
    # the element-by-element fold: the rows after the segment's last NaN, ties to the later
    last_nan = np.full((num, w), -1)
    np.maximum.at(last_nan, seg, np.where(nan, order, -1))
    after = order > last_nan[seg]
    top = np.full((num, w), low, dtype=xs.dtype)
    np.maximum.at(top, seg, np.where(after, xs, low))
    last = np.full((num, w), -1)
    np.maximum.at(last, seg, np.where(after & (xs == top[seg]), order, -1))
    out = xs[np.maximum(last, 0), cols] if n else np.zeros((num, w), xs.dtype)
    out = np.where(last >= 0, out, np.nan if floats else 0).astype(xs.dtype)
    counts = np.bincount(seg, minlength=num)
    if unsorted and floats:  # the fold starts from the lowest finite value, above -inf
        lowest = np.finfo(xs.dtype).min
        out = np.where((last_nan < 0) & (out < lowest), lowest, out)
    elif floats:  # Eigen's packets: NaN skipped, ties to the earlier row, from -inf
        packet = 32 // xs.dtype.itemsize
        ok = ~nan
        top = np.full((num, w), -np.inf, dtype=xs.dtype)
        np.maximum.at(top, seg, np.where(ok, xs, -np.inf))
        first = np.full((num, w), n)
        np.minimum.at(first, seg, np.where(ok & (xs == top[seg]), order, n))
        skip = np.where(first < n, xs[np.minimum(first, max(n - 1, 0)), cols] if n else 0, -np.inf)
        packed = (counts[:, None] >= 2) & (cols < w - w % packet)
        out = np.where(packed, skip, out)
    return out, counts == 0


def _extreme_bind(maximum: bool, unsorted: bool, opname: str):
    def bind(attrs):
        def segment_extreme(data, ids):
            xs, seg, _, num, rest = _rows(data, ids, attrs.get("num_segments"), opname)
            dtype = np.asarray(data).dtype
            out, empty = _fold_max(xs if maximum else _flip(xs), seg, num, unsorted)
            out = out if maximum else _flip(out)
            if unsorted:
                info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
                fill = info.min if maximum else info.max
            else:
                fill = 0
            out = np.where(empty[:, None], np.asarray(fill, dtype), out).astype(dtype)
            return out.reshape((num, *rest))

        return segment_extreme

    return bind


def _tied_weights(node, x0, ids):
    """Per row of data at the point: 1 / (the tie count) where it equals its segment's
    result, else 0, the rows' ids (negatives dropped), positions and the segment count."""
    out0 = np.asarray(_EXTREMES[node.op](node.attrs)(x0, ids))
    xs, seg, keep, num, _ = _rows(x0, ids, out0.shape[0], node.op)
    picked = xs == out0.reshape(num, xs.shape[1])[seg]
    counts = np.zeros((num, xs.shape[1]), dtype=np.int64)
    np.add.at(counts, seg, picked.astype(np.int64))
    return picked, counts, seg, keep, out0


def _tied_mean(node, x, x0, ids, zero, ratio, constant):
    """The result with the tie frozen: the mean of each segment's tied elements, or its value
    at the point (a constant) where none is tied (an empty or NaN segment)."""
    picked, counts, seg, keep, out0 = _tied_weights(node, np.asarray(x0), np.asarray(ids))
    rows = np.asarray(x).reshape(np.size(ids), counts.shape[1])[keep]
    weights = np.where(picked, ratio(np.maximum(counts[seg], 1)), zero)
    total = np.full(counts.shape, zero, dtype=rows.dtype)
    if rows.size:
        np.add.at(total, seg, np.where(picked, rows * weights, zero))
    out = np.where(counts > 0, total, constant(out0.reshape(counts.shape)))
    return out.reshape(out0.shape)


def _extreme_at_point(node, args, raw):
    x = np.asarray(args[0], dtype=np.float64)
    return _tied_mean(node, x, raw[0], raw[1], 0.0, lambda c: 1.0 / c, lambda v: v)


def _extreme_sympy(opname: str):
    def translate(sp, attrs, args, values):
        return _tied_mean(_Node(opname, attrs), args[0], values[0], values[1], sp.Integer(0),
                          lambda c: apply(lambda k: sp.Rational(1, int(k)), c),
                          lambda v: apply(lambda e: number(sp, e), v))  # fmt: skip

    return translate


def _extreme_grad(unsorted: bool):
    def rule(b, n, g):
        # TensorFlow's _SegmentMinOrMaxGrad / _UnsortedSegmentMinOrMaxGrad: g / (number of
        # elements equal to the result) to each of them, 0 to the others
        data, ids = n.inputs
        drop = {"drop_negative": True} if unsorted else {}
        picked = b.equal(data, b.gather(n.id, ids, axis=0, batch_dims=0, **drop))
        if unsorted:  # the gathered result of a negative id is 0: not a pick
            extra = len(b.shape(data)) - len(b.shape(ids))
            kept = b.greater_equal(ids, b.const(0, like=ids))
            kept = b.reshape(kept, shape=(*b.shape(ids), *(1,) * extra))
            picked = b.logical_and(picked, kept)
        ones = b.cast(picked, dtype=b.dtype(data))
        if unsorted:
            count = b.unsorted_segment_sum(ones, ids, num_segments=n.attrs["num_segments"])
        else:
            count = b.segment_sum(ones, ids)
        share = b.gather(b.div(g, count), ids, axis=0, batch_dims=0, **drop)
        return b.where(picked, share, b.const(0.0, like=data))

    return rule


class _Node:
    """What the at-point helpers read of a node: its op name and attributes."""

    def __init__(self, op: str, attrs):
        self.op, self.attrs = op, attrs


_EXTREMES: dict = {}
for _name, _maximum, _unsorted in (
    ("segment_max", True, False),
    ("segment_min", False, False),
    ("unsorted_segment_max", True, True),
    ("unsorted_segment_min", False, True),
):
    _EXTREMES[_name] = _extreme_bind(_maximum, _unsorted, _name)
    _pick = "largest" if _maximum else "smallest"
    register(
        Op(
            _name,
            _infer(_name, _unsorted),
            index_inputs=(1,),
            bind=_EXTREMES[_name],
            grads=(_extreme_grad(_unsorted), None),
            behavior=KINK,
            public=True,
            arity=2,
            attrs=NUM_SEGMENTS if _unsorted else (),
            sympy=_extreme_sympy(_name),
            at_point=_extreme_at_point,
            convention=tie_facts.segment(_tied_weights),
            transport=Transport.ROUTE,
            route=_segment_route,
            inactive=(
                f"{{text}} passes the gradient only to the {_pick} element(s) of each segment: "
                "{count} get none",
                f"{_name} in {{entry}} {{line}} passes the gradient only to the {_pick} element(s)",
            ),
            doc=f"tf.math.{_name}: the {_pick} element of each segment of data's rows",
        )
    )


# --- means -------------------------------------------------------------------------------------
def _segment_mean(data, ids):
    x = np.asarray(data)
    xs, seg, _, num, rest = _rows(x, ids, None, "segment_mean")
    counts = np.bincount(seg, minlength=num)
    total = np.zeros((num, xs.shape[1]), dtype=x.dtype)
    np.add.at(total, seg, xs)  # in order, from +0.0
    single = counts[seg] == 1  # a segment of one row is copied (keeps -0.0)
    total[seg[single]] = xs[single]
    divisor = np.maximum(counts, 1)[:, None].astype(x.dtype)
    out = np.where(counts[:, None] > 1, total / divisor, total)
    return out.astype(x.dtype).reshape((num, *rest))


def _mean_sympy(sp, attrs, args, values):
    ids = np.asarray(values[1])
    num = attrs.get("num_segments")
    num = _sorted_ids(ids, "segment_mean") if num is None else num
    total = _unsorted_bind({"num_segments": num})(args[0], ids)
    counts = np.bincount(ids[ids >= 0].ravel(), minlength=num)
    counts = counts.reshape((num,) + (1,) * (total.ndim - 1))
    return total / apply(lambda k: sp.Integer(max(int(k), 1)), counts)


def _unsorted_count(b, n):
    """maximum(unsorted_segment_sum(ones, ids), 1), shaped to broadcast against the result."""
    data, ids = n.inputs
    ones = b.const(np.ones(b.shape(ids)), like=data)
    count = b.unsorted_segment_sum(ones, ids, num_segments=n.attrs["num_segments"])
    extra = len(b.shape(data)) - len(b.shape(ids))
    count = b.reshape(count, shape=(n.attrs["num_segments"], *(1,) * extra))
    return b.maximum(count, b.const(1.0, like=data))


def _unsorted_mean_bind(attrs):
    num = attrs["num_segments"]

    def unsorted_segment_mean(data, ids):
        x, ids = np.asarray(data), np.asarray(ids)
        total = _unsorted_bind(attrs)(x, ids)
        counts = np.bincount(ids[ids >= 0].ravel(), minlength=num).astype(x.dtype)
        return total / np.maximum(counts, 1).reshape((num,) + (1,) * (total.ndim - 1))

    return unsorted_segment_mean


def _mean_grad(unsorted: bool):
    def rule(b, n, g):
        data, ids = n.inputs
        if unsorted:  # the autodiff of tf.math.unsorted_segment_mean's composition
            share = b.div(g, _unsorted_count(b, n))
            return b.gather(share, ids, axis=0, batch_dims=0, drop_negative=True)
        # TensorFlow's _SegmentMeanGrad: gather(g / segment_sum(ones), ids)
        extra = len(b.shape(data)) - len(b.shape(ids))
        ones = b.const(np.ones((*b.shape(ids), *(1,) * extra)), like=data)
        return b.gather(b.div(g, b.segment_sum(ones, ids)), ids, axis=0, batch_dims=0)

    return rule


for _name, _unsorted in (("segment_mean", False), ("unsorted_segment_mean", True)):
    register(
        Op(
            _name,
            _infer(_name, _unsorted, floats=True),
            index_inputs=(1,),
            forward=None if _unsorted else _segment_mean,
            bind=_unsorted_mean_bind if _unsorted else None,
            grads=(_mean_grad(_unsorted), None),
            public=True,
            arity=2,
            attrs=NUM_SEGMENTS if _unsorted else (),
            accepts="float",
            sympy=_mean_sympy,
            transport=Transport.ROUTE,
            route=_segment_route,
            doc=f"tf.math.{_name}: the mean of each segment of data's rows",
        )
    )
