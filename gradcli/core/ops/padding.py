"""pad (tf.pad) in its three modes, and the gradient of the mirrored ones (MirrorPadGrad).

CONSTANT surrounds x with constant_values (TensorFlow's Pad/PadV2); its gradient is the
inner slice of g (_PadGrad), and constant_values gets none (None in TensorFlow too: here
it is an attribute). REFLECT and SYMMETRIC mirror x at its edges, without and with the
edge element (MirrorPad); their gradient folds the mirrored copies of g back onto the
elements they copy and adds them (MirrorPadGrad), and the gradient of that fold is the
mirrored pad again (_MirrorPadGradGrad).
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.graph import FLOAT_DTYPES
from gradcli.core.ops.infer import fmt
from gradcli.core.ops.registry import (
    Attr,
    AttrKind,
    Op,
    ShapeError,
    Transport,
    register,
)
from gradcli.core.ops.sym import number
from gradcli.core.ops.tiling import bind_fill, copy_route

MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _plan(attrs, shape) -> tuple[list[tuple[int, int]], str]:
    """(one (before, after) pair per axis, the mode in capitals), checked as TensorFlow does."""
    given = attrs.get("mode", "CONSTANT")
    mode = given.upper()
    if mode not in MODES:
        raise ShapeError(
            f"pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC' (any case), got '{given}'"
        )
    p, rank = attrs["paddings"], len(shape)
    if (
        isinstance(p, int)
        or len(p) != rank
        or any(not isinstance(q, (list, tuple)) or len(q) != 2 for q in p)
    ):
        raise ShapeError(
            f"pad: paddings must be a list of {rank} [before, after] pair{'s' * (rank != 1)}, "
            f"one per axis of x {fmt(shape)}, got {p}"
        )
    pairs = [(int(lo), int(hi)) for lo, hi in p]
    for axis, ((lo, hi), d) in enumerate(zip(pairs, shape)):
        if lo < 0 or hi < 0:
            raise ShapeError(
                f"pad: paddings must be non-negative, got [{lo}, {hi}] for axis {axis}"
            )
        # TensorFlow's MirrorPad: each side at most size - 1 (REFLECT) or size (SYMMETRIC),
        # checked on every axis, padded or not (REFLECT refuses any empty axis)
        if mode == "REFLECT" and not (lo < d and hi < d):
            raise ShapeError(
                f"pad: in REFLECT mode paddings must be less than the dimension size: "
                f"[{lo}, {hi}] for axis {axis} of size {d}"
            )
        if mode == "SYMMETRIC" and not (lo <= d and hi <= d):
            raise ShapeError(
                f"pad: in SYMMETRIC mode paddings must be no greater than the dimension size: "
                f"[{lo}, {hi}] for axis {axis} of size {d}"
            )
    return pairs, mode


def _pad_infer(attrs, x):
    pairs, mode = _plan(attrs, x.shape)
    c = attrs.get("constant_values", 0.0)
    if (
        mode == "CONSTANT"
        and x.dtype not in FLOAT_DTYPES
        and not (math.isfinite(c) and c == round(c))
    ):
        raise ShapeError(f"pad: constant_values {c} is not a whole number, as {x.dtype} needs")
    if mode == "CONSTANT" and x.dtype == "bool" and c not in (0, 1):
        raise ShapeError(f"pad: constant_values {c} is not a boolean (0 or 1)")
    return tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, pairs)), x.dtype


def _pad(attrs, x, zero=None):
    """The padded x; zero (when given) replaces constant_values."""
    x = np.asarray(x)
    pairs, mode = _plan(attrs, x.shape)
    if not pairs or not any(lo or hi for lo, hi in pairs):
        return x.copy()
    if mode != "CONSTANT":
        return np.pad(x, pairs, mode=mode.lower())
    fill = attrs.get("constant_values", 0.0) if zero is None else zero
    out = np.full(tuple(d + lo + hi for d, (lo, hi) in zip(x.shape, pairs)), fill, x.dtype)
    out[tuple(slice(lo, lo + d) for d, (lo, _) in zip(x.shape, pairs))] = x
    return out


def _pad_grad(b, n, g):
    shape = b.shape(n.inputs[0])
    pairs, mode = _plan(n.attrs, shape)
    if not any(lo or hi for lo, hi in pairs):
        return g
    if mode == "CONSTANT":  # _PadGrad: the slice of g where x sits
        return b.getitem(g, index=tuple(slice(lo, lo + d) for d, (lo, _) in zip(shape, pairs)))
    return b.mirror_pad_grad(g, paddings=[list(p) for p in pairs], mode=mode)


def _pad_sympy(sp, attrs, args, values):
    return _pad(attrs, args[0], number(sp, attrs.get("constant_values", 0.0)))


register(
    Op(
        "pad",
        _pad_infer,
        accepts="any",
        bind=bind_fill(_pad),
        grads=(_pad_grad,),
        public=True,
        arity=1,
        attrs=(
            Attr(
                "paddings",
                AttrKind.NESTED,
                required=True,
                example="{op}(x, paddings=[[1, 1], [2, 2]])",
            ),
            Attr("mode", AttrKind.STR, "CONSTANT"),
            Attr("constant_values", AttrKind.NUMBER, 0.0),  # -inf too, as TensorFlow
        ),
        sympy=_pad_sympy,
        moves=True,
        cancels=True,  # a mirrored element's gradient sums its copies'
        transport=Transport.ROUTE,
        route=copy_route(_pad),
        doc="tf.pad: CONSTANT (constant_values around x), REFLECT or SYMMETRIC (mirrored)",
    )
)


# --- MirrorPadGrad: the mirrored copies of g folded back and added ------------------------------
def _fold_infer(attrs, g):
    shape = tuple(d - lo - hi for d, (lo, hi) in zip(g.shape, attrs["paddings"]))
    return shape, g.dtype


def _fold(attrs, g, zero=None):
    g = np.asarray(g)
    off = 1 if attrs["mode"] == "REFLECT" else 0  # REFLECT does not copy the edge element
    for axis, (lo, hi) in enumerate(attrs["paddings"]):
        if not (lo or hi):
            continue
        n = g.shape[axis] - lo - hi

        def span(start, stop, axis=axis):
            return (slice(None),) * axis + (slice(start, stop),)

        core = g[span(lo, lo + n)].copy()
        # padded element lo - 1 - k copies x element k + off (before); lo + n + k copies
        # n - 1 - off - k (after): flipped, each side lands on a run of x's elements
        if lo:
            core[span(off, off + lo)] += np.flip(g[span(0, lo)], axis)
        if hi:
            core[span(n - off - hi, n - off)] += np.flip(g[span(lo + n, lo + n + hi)], axis)
        g = core
    return g


def _fold_route(node, j, value_of):
    """g's element t (the padded shape) is fed by the output element the pad copies there."""
    ids = np.arange(math.prod(node.shape), dtype=np.int64).reshape(node.shape)
    src = _pad({"paddings": node.attrs["paddings"], "mode": node.attrs["mode"]}, ids).reshape(-1)
    return np.arange(src.size), src


register(
    Op(
        "mirror_pad_grad",
        _fold_infer,
        bind=bind_fill(_fold),
        grads=(lambda b, n, g: b.pad(g, paddings=n.attrs["paddings"], mode=n.attrs["mode"]),),
        arity=1,
        sympy=lambda sp, attrs, args, values: _fold(attrs, args[0]),
        cancels=True,
        transport=Transport.ROUTE,
        route=_fold_route,
    )
)
