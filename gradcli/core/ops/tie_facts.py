"""The conventions of reductions, scans, sorts and pools at ties (and of norm and cumprod at 0).

Each detector is an `Op.convention` (see ops/convention.py). PyTorch 2.13's choices are
held to its values by tests/core/test_conventions.py; JAX's come from its rules (reduce_max
splits a tie evenly, sort and top_k are stable, reduce_window's max picks one element).
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops.convention import Convention, Hit, equal_neighbours, tied
from gradcli.core.ops.convention import ConventionKind as K


def _axis(node):
    axis = node.attrs.get("axis")
    return tuple(axis) if isinstance(axis, list) else axis


# --- max, min over axes -----------------------------------------------------------------------
MAX = Convention(
    K.TIE,
    "max's tie (several elements are the largest)",
    "TensorFlow splits the gradient evenly among the tied elements",
    "PyTorch also splits it (torch.max(x) and amax; torch.max(x, dim) gives it to one)",
    "JAX also splits it",
)
MIN = Convention(
    K.TIE,
    "min's tie (several elements are the smallest)",
    "TensorFlow splits the gradient evenly among the tied elements",
    "PyTorch also splits it (torch.min(x) and amin; torch.min(x, dim) gives it to one)",
    "JAX also splits it",
)


def extreme(largest: bool):
    """max's or min's detector: the elements tied at their group's extreme."""
    convention, pick = (MAX, np.max) if largest else (MIN, np.min)
    sides = (0.0, 1.0) if largest else (1.0, 0.0)

    def detect(node, ins):
        x = np.asarray(ins[0])
        if x.ndim == 0:
            return []
        mask = tied(x, pick, _axis(node))
        if not mask.any():
            return []
        return [Hit(0, mask, convention, *sides)]

    return detect


# --- norm at 0 ----------------------------------------------------------------------------------
NORM_EUCLIDEAN = Convention(
    K.KINK,
    "the euclidean norm's kink (every element of the norm is 0)",
    "TensorFlow gives nan (sqrt'(0) = inf times x = 0)",
    "PyTorch 2.13 gives 0 (torch.linalg.norm and torch.norm)",
    "JAX gives nan (x / norm = 0 / 0)",
    pytorch_same=False,
)
NORM_ONE = Convention(
    K.KINK,
    "the 1-norm's kink (an element is 0)",
    "TensorFlow gives 0 (abs'(0) = 0)",
    "PyTorch also gives 0",
    "JAX gives 1 (abs takes the x >= 0 side)",
)
NORM_P = Convention(
    K.KINK,
    "the p-norm's kink (every element of the norm is 0)",
    "TensorFlow gives nan (a power of 0 in the chain of pow and abs)",
    "PyTorch gives 0",
    "JAX gives nan",
    pytorch_same=False,
)
NORM_INF = Convention(
    K.TIE,
    "the max norm's tie (several elements have the largest |x|)",
    "TensorFlow splits the gradient evenly among the tied elements (0 where x = 0)",
    "PyTorch also splits it",
    "JAX also splits it",
)


def norm(euclidean: tuple, order_axes):
    """norm's detector; order_axes(node, ndim) -> (ord, the reduced axes or None)."""

    def detect(node, ins):
        x = np.asarray(ins[0])
        order, axes = order_axes(node, x.ndim)
        if order == 1.0:
            mask = x == 0
            return [Hit(0, mask, NORM_ONE, -1.0, 1.0)] if mask.any() else []
        if order == math.inf:
            mask = tied(np.abs(x), np.max, axes)
            return [Hit(0, mask, NORM_INF)] if mask.any() else []
        zero = ~np.any(x != 0, axis=axes, keepdims=True) if x.ndim else x == 0
        if not np.any(zero):
            return []
        mask = np.broadcast_to(zero, x.shape)
        convention = NORM_EUCLIDEAN if order in euclidean else NORM_P
        return [Hit(0, np.array(mask), convention, -1.0, 1.0)]

    return detect


# --- cumprod at 0 -------------------------------------------------------------------------------
CUMPROD = Convention(
    K.FORMULA,
    "cumprod at a 0 element",
    "TensorFlow gives 0 (its formula divides by x: div_no_nan(..., 0) = 0), though the "
    "derivative there is a sum of products of the other elements",
    "PyTorch gives the derivative",
    "JAX gives the derivative",
    pytorch_same=False,
)


def cumprod(node, ins):
    """cumprod's detector: its 0 elements."""
    mask = np.asarray(ins[0]) == 0
    return [Hit(0, mask, CUMPROD)] if mask.any() else []


# --- cummax, cummin -----------------------------------------------------------------------------
def running(word: str):
    """cummax's or cummin's detector: elements equal to the running extreme before them."""
    convention = Convention(
        K.TIE,
        f"cum{word}'s tie (an element equals the running {word}imum before it)",
        "TensorFlow gives the gradient to the earlier element (the tie stays with it)",
        "PyTorch gives it to the later element (torch.cum" + word + " moves to the latest)",
        f"JAX shares it between them (lax.cum{word}'s scan differentiates lax.{word}, "
        "which halves a tie)",
        pytorch_same=False,
    )
    fold = np.maximum if word == "max" else np.minimum

    def detect(node, ins):
        x = np.asarray(ins[0])
        if x.ndim == 0 or x.size == 0:
            return []
        axis = node.attrs.get("axis", 0) % x.ndim
        moved = np.flip(x, axis) if node.attrs.get("reverse") else x
        before = fold.accumulate(moved, axis=axis)
        earlier = np.take(before, range(moved.shape[axis] - 1), axis=axis)
        later = np.take(moved, range(1, moved.shape[axis]), axis=axis)
        hit = np.concatenate([np.zeros_like(np.take(moved, [0], axis=axis), bool),
                              later == earlier], axis=axis)  # fmt: skip
        mask = np.flip(hit, axis) if node.attrs.get("reverse") else hit
        return [Hit(0, mask, convention)] if mask.any() else []

    return detect


# --- sort, top_k --------------------------------------------------------------------------------
SORT = Convention(
    K.TIE,
    "sort's tie (equal elements)",
    "TensorFlow gives each tied element the gradient of the slot it sorts into, the earlier "
    "element first",
    "PyTorch also does (a stable sort)",
    "JAX also does (a stable sort)",
)
TOP_K = Convention(
    K.TIE,
    "top_k's tie (equal elements among or next to the k largest)",
    "TensorFlow picks the earlier of equal elements first, and each picked one gets its "
    "slot's gradient",
    "PyTorch also picks the earlier one",
    "JAX also picks the earlier one",
)


def sort(node, ins):
    """sort's detector: elements equal to another element of their row."""
    x = np.asarray(ins[0])
    if x.ndim == 0:
        return []
    mask = equal_neighbours(x, node.attrs.get("axis", -1) % x.ndim)
    return [Hit(0, mask, SORT)] if mask.any() else []


def top_k(node, ins):
    """top_k's detector: equal elements of a row at or above its k-th largest."""
    x = np.asarray(ins[0])
    k = node.attrs.get("k", 1)
    if x.ndim == 0 or k == 0 or x.shape[-1] == 0:
        return []
    kth = -np.sort(-x, axis=-1)[..., k - 1 : k]
    mask = equal_neighbours(x, x.ndim - 1) & (x >= kth)
    return [Hit(0, mask, TOP_K)] if mask.any() else []


# --- tensor_scatter_update at duplicate indices ---------------------------------------------------
SCATTER_UPDATE = Convention(
    K.TIE,
    "tensor_scatter_update's tie (several updates written to one place)",
    "TensorFlow gives each of them the place's gradient, though only one is written",
    "PyTorch (index_put) also gives it to each",
    "JAX gives it to the written one only",
)


def scatter_update(duplicates):
    """tensor_scatter_update's detector; duplicates(ids, shape) -> the tied index vectors."""

    def detect(node, ins):
        t, ids, u = (np.asarray(v) for v in ins)
        if ids.size == 0 or ids.ndim == 0:
            return []
        tied_ids = duplicates(ids, t.shape)
        if not tied_ids.any():
            return []
        mask = tied_ids.reshape(tied_ids.shape + (1,) * (u.ndim - tied_ids.ndim))
        return [Hit(2, np.array(np.broadcast_to(mask, u.shape)), SCATTER_UPDATE)]

    return detect


# --- max pooling, segment max and min -----------------------------------------------------------
MAX_POOL = Convention(
    K.TIE,
    "max pooling's tie (several elements of a window are its largest)",
    "TensorFlow gives the window's gradient to its first largest element",
    "PyTorch also gives it to the first",
    "JAX gives it to one of them (reduce_window's select_and_scatter_add)",
)
SEGMENT = Convention(
    K.TIE,
    "a segment maximum's or minimum's tie (several elements of a segment are the extreme)",
    "TensorFlow splits the gradient evenly among the tied elements",
    "PyTorch (scatter_reduce with amax or amin) also splits it",
    "JAX also splits it (its scatter averages tied updates)",
)


MAX_POOL3D = Convention(
    K.TIE,
    "3-D max pooling's tie (several elements of a window within 1e-5 of its largest)",
    "TensorFlow gives the window's whole gradient to each of them (MaxPool3DGrad)",
    "PyTorch gives it to the first only",
    "JAX gives it to one of them (reduce_window's select_and_scatter_add)",
    pytorch_same=False,
)


def max_pool(windows, convention=MAX_POOL, tolerance: float = 0.0):
    """A max pool's detector; windows(node, x) -> (x channels last, batch axes, channels
    first, geometry, taps, tap_spans, argmax); tied: equal, or within `tolerance`."""

    def same(a, b):
        return a == b if not tolerance else np.abs(a - b) < tolerance

    def detect(node, ins):
        x = np.asarray(ins[0])
        xl, lead, first, axes, taps, tap_spans, best = windows(node, x)
        if xl.size == 0:
            return []
        top = xl.reshape(-1)[best.reshape(-1)].reshape(best.shape)
        count = np.zeros(best.shape, np.int64)
        spans = [s for s in (tap_spans(axes, t) for t in taps(axes)) if s is not None]
        for o_idx, i_idx in spans:
            count[o_idx] += same(xl[i_idx], top[o_idx])
        mask = np.zeros(xl.shape, bool)
        for o_idx, i_idx in spans:
            mask[i_idx] |= same(xl[i_idx], top[o_idx]) & (count[o_idx] >= 2)
        if not mask.any():
            return []
        shaped = mask.reshape((*lead, *mask.shape[1:]))
        out = np.moveaxis(shaped, -1, len(lead)) if first else shaped
        return [Hit(0, np.array(out), convention)]

    return detect


def segment(tied_weights):
    """A segment max's or min's detector; tied_weights as segments._tied_weights."""

    def detect(node, ins):
        x0, ids = np.asarray(ins[0]), np.asarray(ins[1])
        picked, counts, seg, keep, _ = tied_weights(node, x0, ids)
        rows = np.zeros((np.size(ids), picked.shape[1] if picked.ndim > 1 else 1), bool)
        if picked.size:
            rows[keep] = picked & (counts[seg] >= 2)
        if not rows.any():
            return []
        return [Hit(0, rows.reshape(x0.shape), SEGMENT)]

    return detect
