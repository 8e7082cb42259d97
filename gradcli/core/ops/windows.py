"""Sliding-window arithmetic shared by the convolutions and the pools (TensorFlow's rules).

Every spatial axis has an input size n, a window of k taps spaced by a dilation d (so it
spans k_eff = (k - 1) * d + 1 elements), a stride s and a padding. TensorFlow's
GetWindowedOutputSize:
- VALID: out = (n - k_eff + s) / s, divided as C does (toward zero), an error below 0;
- SAME: out = ceil(n / s), padded by max((out - 1) * s + k_eff - n, 0) elements in all,
  total // 2 before and the rest after (an odd total pads one more element after);
- EXPLICIT: out = (n + before + after - k_eff + s) / s, with the given pads.
Output element o's tap t reads input element o * s - before + t * d; one outside [0, n)
reads padding (a zero for a convolution; a pool leaves it out of its window).

The ops compute in channels-last layout with one leading batch axis; to_last and
from_last move a channels-first tensor (NCHW, NCW) there and back.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from gradcli.core.ops.registry import ShapeError

PADDINGS = ("SAME", "VALID", "EXPLICIT")


def spatial_rank(data_format: str) -> int:
    """How many spatial axes a layout has (NHWC: 2, NWC: 1)."""
    return len(data_format) - 2


def channels_first(data_format: str) -> bool:
    """Whether the layout puts channels right after the batch axis (NCHW, NCW)."""
    return data_format[1] == "C"


def check_format(opname: str, data_format, allowed: tuple[str, ...]) -> str:
    """The data_format string, checked against the layouts the op accepts."""
    if data_format not in allowed:
        raise ShapeError(
            f"{opname}: data_format must be {' or '.join(repr(a) for a in allowed)}, "
            f"got {data_format!r}"
        )
    return data_format


def per_axis(opname: str, name: str, value, rank: int, data_format: str, *, at_least=1):
    """An int or a list of 1, rank or rank + 2 ints as one value per spatial axis (TensorFlow's
    _get_sequence); in the full form the batch and channel entries must be 1."""
    full = rank + 2
    items = [value] if isinstance(value, int) else list(value)
    if len(items) == 1:
        items = items * rank
    elif len(items) == full:
        cf = channels_first(data_format)
        outer = (items[0], items[1] if cf else items[-1])
        if any(v != 1 for v in outer):
            raise ShapeError(
                f"{opname}: {name} {list(value)} must be 1 in the batch and channel entries "
                "(TensorFlow does not slide along them)"
            )
        items = items[2:] if cf else items[1:-1]
    elif len(items) != rank:
        lengths = "1 or 3" if rank == 1 else f"1, {rank} or {rank + 2}"
        raise ShapeError(f"{opname}: {name} should have {lengths} entries, got {list(value)}")
    if any(v < at_least for v in items):
        raise ShapeError(f"{opname}: {name} must be at least {at_least}, got {list(items)}")
    return tuple(int(v) for v in items)


def check_padding(opname: str, padding, explicit, rank: int, data_format: str, *, allow_explicit):
    """(padding in capitals as TensorFlow spells it, explicit (before, after) per spatial axis)."""
    allowed = PADDINGS if allow_explicit else PADDINGS[:2]
    if padding not in allowed:
        names = ", ".join(repr(p) for p in allowed[:-1]) + f" or {allowed[-1]!r}"
        why = ""
        if padding == "EXPLICIT" and opname == "conv1d":  # TensorFlow's refuses it too
            why = (
                " (tf.nn.conv1d takes no explicit padding in TensorFlow either; pad the input "
                "with pad(x, paddings) and use 'VALID')"
            )
        raise ShapeError(
            f"{opname}: padding must be {names} (capitals, as TensorFlow), got {padding!r}{why}"
        )
    if padding != "EXPLICIT":
        if explicit:
            raise ShapeError(f"{opname}: explicit_paddings needs padding='EXPLICIT'")
        return padding, ()
    pairs = explicit or []
    if isinstance(pairs, int) or any(
        not isinstance(p, (list, tuple)) or len(p) != 2 for p in pairs
    ):
        raise ShapeError(f"{opname}: explicit_paddings must be a list of [before, after] pairs")
    if len(pairs) == rank + 2:
        cf = channels_first(data_format)
        outer = (pairs[0], pairs[1] if cf else pairs[-1])
        if any(v != 0 for p in outer for v in p):
            raise ShapeError(
                f"{opname}: explicit_paddings must be 0 in the batch and channel dimensions"
            )
        pairs = pairs[2:] if cf else pairs[1:-1]
    if len(pairs) != rank:
        raise ShapeError(
            f"{opname}: explicit_paddings needs {rank + 2} pairs (or {rank}, the spatial ones), "
            f"got {len(pairs)}"
        )
    if any(v < 0 for p in pairs for v in p):
        raise ShapeError(f"{opname}: explicit_paddings must be non-negative, got {explicit}")
    return padding, tuple((int(lo), int(hi)) for lo, hi in pairs)


@dataclass(frozen=True)
class Axis:
    """One spatial axis of a windowed op: sizes, window and padding before."""

    n: int  # input size
    out: int  # output size
    k: int  # taps
    s: int  # stride
    d: int  # dilation
    before: int  # padding before (SAME: total // 2)

    def span(self, t: int) -> tuple[slice, slice] | None:
        """(output slice, input slice) of the outputs whose tap t reads a real element."""
        off = t * self.d - self.before  # input element of output 0's tap t
        first = max(0, -(off // self.s) if off < 0 else 0)  # smallest o with o*s + off >= 0
        last = min(self.out - 1, (self.n - 1 - off) // self.s)  # largest o with o*s + off < n
        if last < first:
            return None
        start = first * self.s + off
        return slice(first, last + 1), slice(start, start + (last - first) * self.s + 1, self.s)


def _c_div(a: int, b: int) -> int:
    """Integer division toward zero, as C++ divides (TensorFlow's output size)."""
    q = abs(a) // b
    return q if a >= 0 else -q


def axis_of(opname, n, k, s, d, padding, explicit_pair) -> Axis:
    """One spatial axis's geometry (see the module doc)."""
    k_eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-n // s)
        total = max((out - 1) * s + k_eff - n, 0)
        return Axis(n, out, k, s, d, total // 2)
    before, after = explicit_pair if padding == "EXPLICIT" else (0, 0)
    out = _c_div(n + before + after - k_eff + s, s)
    if out < 0:
        raise ShapeError(
            f"{opname}: computed output size would be negative: {out} (input size {n}, "
            f"effective filter size {k_eff}, stride {s})"
        )
    return Axis(n, out, k, s, d, before)


def geometry(opname, sizes, ks, strides, dilations, padding, explicit) -> tuple[Axis, ...]:
    """The geometry of every spatial axis."""
    return tuple(
        axis_of(opname, n, k, s, d, padding, explicit[i] if explicit else None)
        for i, (n, k, s, d) in enumerate(zip(sizes, ks, strides, dilations))
    )


def taps(axes: tuple[Axis, ...]):
    """Every tap of the window (row-major, TensorFlow's order inside a window)."""
    return itertools.product(*(range(a.k) for a in axes))


def tap_spans(axes: tuple[Axis, ...], tap) -> tuple[tuple, tuple] | None:
    """(output index, input index) over (batch, *spatial, channel) for one tap's real reads."""
    outs, ins = [slice(None)], [slice(None)]
    for a, t in zip(axes, tap):
        span = a.span(t)
        if span is None:
            return None
        outs.append(span[0])
        ins.append(span[1])
    return (*outs, slice(None)), (*ins, slice(None))


def counts(axes: tuple[Axis, ...]) -> np.ndarray:
    """How many real (unpadded) elements each output's window holds, shaped (*out)."""
    total = np.ones((), dtype=np.int64)
    for a in axes:
        per = np.zeros(a.out, dtype=np.int64)
        for t in range(a.k):
            span = a.span(t)
            if span is not None:
                per[span[0]] += 1
        total = np.multiply.outer(total, per)
    return total


def to_last(x: np.ndarray, rank: int, first: bool) -> np.ndarray:
    """x with its channel axis last and its batch axes merged into one (a view when it can)."""
    if first:
        x = np.moveaxis(x, -rank - 1, -1)
    return x.reshape((math.prod(x.shape[: x.ndim - rank - 1]), *x.shape[-rank - 1 :]))


def from_last(y: np.ndarray, lead: tuple[int, ...], first: bool) -> np.ndarray:
    """The inverse of to_last: batch axes `lead` restored, channels moved back when first."""
    y = y.reshape((*lead, *y.shape[1:]))
    return np.moveaxis(y, -1, len(lead)) if first else y


def layout_shape(lead, spatial, channels, first: bool) -> tuple[int, ...]:
    """A tensor's shape in its layout from its parts."""
    return (*lead, channels, *spatial) if first else (*lead, *spatial, channels)


def split_shape(shape, rank: int, first: bool):
    """(batch axes, spatial sizes, channels) of a shape in its layout."""
    lead = tuple(shape[: len(shape) - rank - 1])
    if first:
        return lead, tuple(shape[-rank:]), shape[-rank - 1]
    return lead, tuple(shape[-rank - 1 : -1]), shape[-1]


def route_pairs(axes, lead_size: int, in_channels, out_channels, pair_channels):
    """(into, src) flat index pairs over channels-last (batch, *spatial, channel) tensors:
    output element (b, o, co) reads input element (b, o*s - before + t*d, ci) for every tap
    t whose read is real and every (ci, co) pair_channels(ci_range, co_range) gives."""
    in_sp = tuple(a.n for a in axes)
    out_sp = tuple(a.out for a in axes)
    intos, srcs = [], []
    ci, co = pair_channels
    for tap in taps(axes):
        spans = tap_spans(axes, tap)
        if spans is None:
            continue
        o_idx, i_idx = spans
        in_ids = np.arange(lead_size * math.prod(in_sp) * in_channels).reshape(
            (lead_size, *in_sp, in_channels)
        )[i_idx]
        out_ids = np.arange(lead_size * math.prod(out_sp) * out_channels).reshape(
            (lead_size, *out_sp, out_channels)
        )[o_idx]
        intos.append(in_ids[..., ci].reshape(-1))
        srcs.append(out_ids[..., co].reshape(-1))
    if not intos:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(intos), np.concatenate(srcs)
