"""The numpy side of the pools: canonical attributes, shapes, and the five kernels
(max_pool, its argmax, MaxPoolGrad, MaxPoolGradGrad, avg_pool, AvgPoolGrad); pooling.py
documents TensorFlow's rules they follow and registers the ops.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.ops.infer import fmt
from gradcli.core.ops.registry import ShapeError
from gradcli.core.ops.windows import (
    channels_first,
    check_format,
    check_padding,
    counts,
    from_last,
    geometry,
    layout_shape,
    per_axis,
    split_shape,
    tap_spans,
    taps,
    to_last,
)

CANON = ("ksize", "strides", "padding", "data_format")
FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def plan(opname: str, attrs: dict, rank: int) -> dict:
    """The canonical attributes (CANON) of a public pool's TensorFlow-style attributes."""
    fmt_ = check_format(opname, attrs.get("data_format") or FORMATS[rank][0], FORMATS[rank])
    padding, _ = check_padding(opname, attrs["padding"], None, rank, fmt_, allow_explicit=False)
    return {
        "ksize": per_axis(opname, "ksize", attrs["ksize"], rank, fmt_),
        "strides": per_axis(opname, "strides", attrs["strides"], rank, fmt_),
        "padding": padding,
        "data_format": fmt_,
    }


def parts(c, shape):
    """(rank, channels first, batch axes, geometry) of a pool of a tensor of `shape`."""
    rank, first = len(c["data_format"]) - 2, channels_first(c["data_format"])
    lead, spatial, _ = split_shape(shape, rank, first)
    axes = geometry("pool", spatial, c["ksize"], c["strides"], (1,) * rank, c["padding"], ())
    return rank, first, lead, axes


def out_shape(opname, c, shape) -> tuple[int, ...]:
    """The pool's output shape, checked as TensorFlow checks it."""
    rank = len(c["data_format"]) - 2
    if len(shape) != rank + 2:
        raise ShapeError(
            f"{opname}: input must have rank {rank + 2} ({c['data_format']}), "
            f"got shape {fmt(shape)}"
        )
    first = channels_first(c["data_format"])
    lead, spatial, channels = split_shape(shape, rank, first)
    axes = geometry(opname, spatial, c["ksize"], c["strides"], (1,) * rank, c["padding"], ())
    return layout_shape(lead, tuple(a.out for a in axes), channels, first)


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def max_values(c, x):
    """MaxPool: a running max from the lowest float, taking strictly larger elements."""
    x = np.asarray(x)
    rank, first, lead, axes = parts(c, x.shape)
    xl = to_last(x, rank, first)
    y = np.full((xl.shape[0], *(a.out for a in axes), xl.shape[-1]), _lowest(x.dtype), x.dtype)
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            cur, v = y[o_idx], xl[i_idx]
            y[o_idx] = np.where(cur < v, v, cur)
    return from_last(y, lead, first)


def argmax(c, x) -> np.ndarray:
    """MaxPoolGrad's argmax: per output (channels last), the flat index into the input
    (channels last, batch axes merged) of the first element of its window that no later
    element exceeds; a window's first element is always taken first."""
    x = np.asarray(x)
    rank, first, _, axes = parts(c, x.shape)
    xl = to_last(x, rank, first)
    ids = np.arange(xl.size, dtype=np.int64).reshape(xl.shape)
    shape = (xl.shape[0], *(a.out for a in axes), xl.shape[-1])
    best, cur = np.full(shape, -1, np.int64), np.zeros(shape, x.dtype)
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            v = xl[i_idx]
            take = (best[o_idx] < 0) | (cur[o_idx] < v)
            cur[o_idx] = np.where(take, v, cur[o_idx])
            best[o_idx] = np.where(take, ids[i_idx], best[o_idx])
    return best


def max_grad_values(c, x, g):
    """MaxPoolGrad: each g added to its window's argmax, in output order."""
    x, g = np.asarray(x), np.asarray(g)
    rank, first, lead, _ = parts(c, x.shape)
    best = argmax(c, x)
    dx = np.zeros(x.size, dtype=g.dtype)
    np.add.at(dx, best.reshape(-1), to_last(g, rank, first).reshape(-1))
    xl_shape = to_last(np.empty(x.shape, dtype=bool), rank, first).shape
    return from_last(dx.reshape(xl_shape), lead, first)


def max_grad_grad_values(c, x, gg):
    """MaxPoolGradGrad: for each output, the element of gg (shaped like x) at its argmax."""
    x, gg = np.asarray(x), np.asarray(gg)
    rank, first, lead, _ = parts(c, x.shape)
    best = argmax(c, x)
    picked = to_last(gg, rank, first).reshape(-1)[best.reshape(-1)]
    return from_last(picked.reshape(best.shape), lead, first)


def _count_as(axes, like):
    n = counts(axes)
    return n.astype(object) if like.dtype == object else n.astype(like.dtype)


def avg_values(c, x):
    """AvgPool: the window's real elements summed in row-major order, over their count."""
    x = np.asarray(x)
    rank, first, lead, axes = parts(c, x.shape)
    xl = to_last(x, rank, first)
    acc = np.zeros((xl.shape[0], *(a.out for a in axes), xl.shape[-1]), x.dtype)
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            acc[o_idx] = acc[o_idx] + xl[i_idx]
    with np.errstate(invalid="ignore", divide="ignore"):
        y = acc / _count_as(axes, acc)[..., None]
    return from_last(y, lead, first)


def avg_grad_values(c, input_shape, g):
    """AvgPoolGrad: g * (1 / count) added to each element of its window, in output order."""
    g = np.asarray(g)
    rank, first, lead, axes = parts(c, tuple(input_shape))
    gl = to_last(g, rank, first)
    one = g.dtype.type(1) if g.dtype != object else 1
    with np.errstate(divide="ignore"):
        coef = gl * (one / _count_as(axes, gl))[..., None]
    _, spatial, channels = split_shape(tuple(input_shape), rank, first)
    dx = np.zeros((gl.shape[0], *spatial, channels), dtype=g.dtype)
    for tap in reversed(list(taps(axes))):  # the last tap reads the earliest output
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            dx[i_idx] = dx[i_idx] + coef[o_idx]
    return from_last(dx, lead, first)
