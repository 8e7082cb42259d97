"""The numpy side of the convolutions: canonical attributes, shapes, and the three kernels.

`plan` turns a public conv's TensorFlow-style attributes (an int or a list of 1, rank or
rank + 2 strides; 'SAME', 'VALID' or 'EXPLICIT' padding; NHWC/NCHW) into the canonical
form (CANON in conv.py) that every conv op's node carries or computes.

The forward gathers each window's elements once (im2col: one copy per kernel tap into a
zero-filled (batch, *out, *taps, channels) array, the zeros being the padding) and
contracts them with the filter in one BLAS call; the input gradient contracts g with the
filter and adds each tap's slice back onto the input (col2im); the filter gradient
contracts the im2col array with g. Every kernel also runs on object arrays (SymPy).
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.graph import FLOAT_DTYPES
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.registry import ShapeError
from gradcli.core.ops.windows import (
    Axis,
    channels_first,
    check_format,
    check_padding,
    from_last,
    geometry,
    layout_shape,
    per_axis,
    split_shape,
    tap_spans,
    taps,
    to_last,
)

FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
LETTERS_OUT, LETTERS_TAP = "ij", "kl"  # einsum labels of the output and tap axes
ROUTE_LIMIT = 20_000_000  # explain's element pairs past which a conv is mapped all-or-nothing


def float_dtype(opname, *nodes) -> str:
    """The operands' common float dtype (a ShapeError otherwise)."""
    dtypes = {n.dtype for n in nodes}
    if len(dtypes) != 1 or nodes[0].dtype not in FLOAT_DTYPES:
        raise ShapeError(
            f"{opname}: needs float tensors of one dtype, got "
            f"{' and '.join(n.dtype for n in nodes)}"
        )
    return nodes[0].dtype


def plan(opname: str, attrs: dict, rank: int, *, depthwise=False, explicit_ok=True) -> dict:
    """The canonical attributes (CANON) of a public conv's TensorFlow-style attributes."""
    fmt_ = check_format(opname, attrs.get("data_format") or FORMATS[rank][0], FORMATS[rank])
    stride_name = "stride" if "stride" in attrs else "strides"
    strides = per_axis(opname, stride_name, attrs[stride_name], rank, fmt_)
    dilations = per_axis(opname, "dilations", attrs.get("dilations", 1), rank, fmt_)
    padding, explicit = check_padding(
        opname,
        attrs["padding"],
        attrs.get("explicit_paddings"),
        rank,
        fmt_,
        allow_explicit=explicit_ok,
    )
    if depthwise:
        if strides[0] != strides[-1]:
            raise ShapeError(
                f"{opname}: strides must be equal along rows and columns "
                f"(TensorFlow's only implementation), got {list(strides)}"
            )
        if max(dilations) > 1 and max(strides) > 1:
            raise ShapeError(
                f"{opname}: dilations {list(dilations)} need strides of 1, got "
                f"{list(strides)} (TensorFlow's space-to-batch form gives them no meaning)"
            )
    return {
        "strides": strides,
        "dilations": dilations,
        "padding": padding,
        "explicit": explicit,
        "data_format": fmt_,
        "depthwise": depthwise,
    }


def rank_of(c) -> int:
    """The number of spatial axes of canonical attributes c."""
    return len(c["data_format"]) - 2


def _axes(opname, c, spatial, ks) -> tuple[Axis, ...]:
    return geometry(opname, spatial, ks, c["strides"], c["dilations"], c["padding"], c["explicit"])


def out_shape(opname, c, x_shape, f_shape) -> tuple[int, ...]:
    """The output shape of a convolution of x by f, checked as TensorFlow checks it."""
    rank, first = rank_of(c), channels_first(c["data_format"])
    if len(x_shape) < rank + 2:
        raise ShapeError(
            f"{opname}: input must have rank {rank + 2} or more "
            f"({c['data_format']}), got shape {fmt(x_shape)}"
        )
    if len(f_shape) != rank + 2:
        raise ShapeError(f"{opname}: filters must have rank {rank + 2}, got shape {fmt(f_shape)}")
    lead, spatial, channels = split_shape(x_shape, rank, first)
    ks, f_in, f_out = f_shape[:rank], f_shape[rank], f_shape[rank + 1]
    if min(ks) == 0 or f_in == 0:
        raise ShapeError(
            f"{opname}: filters must have no empty window or input-channel "
            f"axis, got shape {fmt(f_shape)}"
        )
    if f_in != channels:
        raise ShapeError(
            f"{opname}: the filters' input channels ({f_in}, shape {fmt(f_shape)}) must equal "
            f"the input's channels ({channels}, shape {fmt(x_shape)}); TensorFlow's CPU has no "
            "gradient for grouped convolutions"
        )
    axes = _axes(opname, c, spatial, ks)
    out_channels = f_in * f_out if c["depthwise"] else f_out
    return layout_shape(lead, tuple(a.out for a in axes), out_channels, first)


def _im2col(axes, xl) -> np.ndarray:
    """Every window's elements: (batch, *out, *taps, channels), zeros where padding is read."""
    shape = (xl.shape[0], *(a.out for a in axes), *(a.k for a in axes), xl.shape[-1])
    cols = np.zeros(shape, dtype=xl.dtype)
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            cols[(*o_idx[:-1], *tap)] = xl[i_idx]
    return cols


def _subs(rank):
    return LETTERS_OUT[:rank], LETTERS_TAP[:rank]


def conv_values(c, x, f):
    """The convolution of x by f (numpy values, object arrays too)."""
    x, f = np.asarray(x), np.asarray(f)
    rank, first = rank_of(c), channels_first(c["data_format"])
    lead, spatial, _ = split_shape(x.shape, rank, first)
    axes = _axes("conv", c, spatial, f.shape[:rank])
    cols = _im2col(axes, to_last(x, rank, first))
    if c["depthwise"]:
        o, k = _subs(rank)
        y = np.einsum(f"z{o}{k}c,{k}cm->z{o}cm", cols, f)
        y = y.reshape((*y.shape[:-2], -1))
    else:
        y = np.tensordot(cols, f, axes=rank + 1)
    return from_last(y, lead, first)


def input_grad_values(c, input_shape, g, f):
    """Conv2DBackpropInput: g (shaped like the conv's output) spread back onto the input."""
    g, f = np.asarray(g), np.asarray(f)
    rank, first = rank_of(c), channels_first(c["data_format"])
    lead, spatial, channels = split_shape(tuple(input_shape), rank, first)
    axes = _axes("conv", c, spatial, f.shape[:rank])
    gl = to_last(g, rank, first)
    if c["depthwise"]:
        o, k = _subs(rank)
        g5 = gl.reshape((*gl.shape[:-1], channels, -1))
        t = np.einsum(f"z{o}cm,{k}cm->z{o}{k}c", g5, f)
    else:  # (batch, *out, *taps, in channels): g against each tap's filter matrix
        t = np.tensordot(gl, f, axes=([rank + 1], [rank + 1]))
    dx = np.zeros((gl.shape[0], *spatial, channels), dtype=t.dtype)
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            dx[i_idx] += t[(*o_idx[:-1], *tap)]
    return from_last(dx, lead, first)


def filter_grad_values(c, filter_shape, x, g):
    """Conv2DBackpropFilter: each tap's input elements contracted with g."""
    x, g = np.asarray(x), np.asarray(g)
    rank, first = rank_of(c), channels_first(c["data_format"])
    _, spatial, channels = split_shape(x.shape, rank, first)
    axes = _axes("conv", c, spatial, tuple(filter_shape[:rank]))
    cols = _im2col(axes, to_last(x, rank, first))
    gl = to_last(g, rank, first)
    if c["depthwise"]:
        o, k = _subs(rank)
        g5 = gl.reshape((*gl.shape[:-1], channels, -1))
        return np.einsum(f"z{o}{k}c,z{o}cm->{k}cm", cols, g5)
    lead_axes = list(range(rank + 1))
    return np.tensordot(cols, gl, axes=(lead_axes, lead_axes))


# --- explain: which gradient elements feed which input elements ----------------------------
def _ids_last(shape, rank, first):
    ids = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    return to_last(ids, rank, first)


def links(c, x_shape, f_shape, y_shape):
    """Per tap, the flat ids (x, f, y) of the products x * f that make y: three arrays of one
    shape, or None past ROUTE_LIMIT links (explain then maps the op all-or-nothing)."""
    rank, first = rank_of(c), channels_first(c["data_format"])
    _, spatial, channels = split_shape(x_shape, rank, first)
    ks, mult = tuple(f_shape[:rank]), f_shape[-1]
    if math.prod(y_shape) * math.prod(ks) * (1 if c["depthwise"] else channels) > ROUTE_LIMIT:
        return None
    axes = _axes("conv", c, spatial, ks)
    xl, yl = _ids_last(x_shape, rank, first), _ids_last(y_shape, rank, first)
    fid = np.arange(math.prod(f_shape), dtype=np.int64).reshape((*ks, -1))
    # the (input channel, output channel) pairs one tap connects, in the filter's order
    ci = np.repeat(np.arange(channels), mult)
    co = np.arange(channels * mult) if c["depthwise"] else np.tile(np.arange(mult), channels)
    out = []
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is not None:
            o_idx, i_idx = spans
            y = yl[o_idx][..., co]
            out.append((xl[i_idx][..., ci], np.broadcast_to(fid[tap], y.shape), y))
    return out
