"""Conventions at kinks and ties: where an op has no derivative, only the framework's choice.

An op whose gradient at some points is a convention (relu at 0, maximum at a tie) names
it in its `Op.convention`: a detector convention(node, ins) -> list of `Hit`, each the
elements of one input that are at such a point, the `Convention` TensorFlow applies there,
and the op's one-sided derivatives with respect to that input (from below and from above;
None where a side does not exist, outside the domain). The detectors are cheap numpy tests
on the forward values; `core/convention_sites.py` runs them over a graph after evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

import numpy as np


class ConventionKind(str, Enum):
    """What makes a point one where the gradient is a convention, not a derivative."""

    KINK = "kink"  # the one-sided derivatives differ (relu and abs at 0, clip at a bound)
    TIE = "tie"  # equal values compete for one gradient (maximum, max, sort, max_pool)
    STEP = "step"  # the jump of an op that is zero almost everywhere (round, floor, sign)
    BOUNDARY = "boundary"  # the edge of the domain: one side only (sqrt at 0, pow at 0)
    FORMULA = "formula"  # a derivative exists, but TensorFlow's formula gives another value


@dataclass(frozen=True, slots=True)
class Convention:
    """The facts at one kind of point of one op: what TensorFlow, PyTorch and JAX give."""

    kind: ConventionKind
    point: str  # "relu's kink (input = 0)"
    tensorflow: str  # "TensorFlow gives 0 (ReluGrad passes the gradient where the output > 0)"
    pytorch: str  # "PyTorch also gives 0"
    jax: str  # "JAX also gives 0"
    # PyTorch 2.13 gives TensorFlow's value at such elements (tests hold it to torch's values)
    pytorch_same: bool = True


@dataclass(frozen=True, slots=True)
class Hit:
    """Elements of input `input` of a node at a convention's point, with the one-sided
    derivatives of the op there (arrays or numbers broadcastable to mask; None: no side)."""

    input: int
    mask: np.ndarray  # bool, in the input's shape
    convention: Convention
    below: object = None
    above: object = None
    op: str | None = None  # an op inside a composite (abs inside mean_absolute_error)


def fit_mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    """A broadcast mask reduced to an input's shape: an element is hit when any of the
    elements it was broadcast to is."""
    m = np.asarray(mask, dtype=bool)
    if m.shape == shape:
        return m
    lead = m.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + k for k, d in enumerate(shape) if d == 1 and m.shape[lead + k] != 1
    )
    if axes:
        m = m.any(axis=axes, keepdims=True)
    if lead:
        m = m.reshape(m.shape[lead:])
    return np.broadcast_to(m, shape)


def _side(value, mask):
    """A one-sided derivative broadcast to the mask's shape (None stays None)."""
    if value is None:
        return None
    return np.broadcast_to(np.asarray(value, dtype=np.float64), np.shape(mask))


def elementwise(*points) -> Callable:
    """A detector for an elementwise op from (convention, inputs, where, sides) rows:
    where(*ins) -> mask of the broadcast elements at the point; sides(*ins) -> per input
    position in `inputs`, its (below, above) derivatives (numbers or broadcast arrays)."""

    wheres = tuple(where for _, _, where, _ in points)

    def detect(node, ins) -> list[Hit]:
        # the 0-d fast path (Python floats): most often nothing is at the point
        if len(ins) == 1:
            x = ins[0]
            if type(x) is float:
                for where in wheres:
                    if where(x):
                        break
                else:
                    return []
        elif all(type(v) is float for v in ins) and not any(w(*ins) for w in wheres):
            return []
        ins = [np.asarray(v) for v in ins]
        hits = []
        with np.errstate(all="ignore"):
            for convention, inputs, where, sides in points:
                mask = np.asarray(where(*ins), dtype=bool)
                if not mask.any():
                    continue
                per_input = sides(*ins)
                for j in inputs:
                    shape = np.shape(ins[j])
                    below, above = per_input[j]
                    if np.shape(mask) != shape:  # one-sided values of a broadcast input
                        below = _fold(below, mask, shape)
                        above = _fold(above, mask, shape)
                        m = fit_mask(mask, shape)
                    else:
                        m = mask
                        below, above = _side(below, mask), _side(above, mask)
                    hits.append(Hit(j, np.array(m), convention, below, above))
        return hits

    detect.wheres = wheres  # its 0-d test: no hit when no `where` holds (convention_sites)
    return detect


def _fold(value, mask, shape):
    """One-sided values of a broadcast input, reduced to its shape as its mask is."""
    if value is None:
        return None
    v = np.broadcast_to(np.asarray(value, dtype=np.float64), np.shape(mask))
    lead = v.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + k for k, d in enumerate(shape) if d == 1 and v.shape[lead + k] != 1
    )
    if axes:
        v = v.max(axis=axes, keepdims=True)
    if lead:
        v = v.reshape(v.shape[lead:])
    return np.broadcast_to(v, shape)


def tied(values, extreme, axis) -> np.ndarray:
    """The elements equal to their group's extreme (along axis) where two or more are."""
    x = np.asarray(values)
    if x.size == 0:
        return np.zeros(x.shape, bool)
    with np.errstate(invalid="ignore"):
        m = x == extreme(x, axis=axis, keepdims=True)
    count = np.sum(m, axis=axis, keepdims=True)
    return m & (count >= 2)


def equal_neighbours(values, axis: int) -> np.ndarray:
    """The elements equal to another element of their row along axis (ties of a sort)."""
    x = np.asarray(values)
    if x.size == 0 or x.ndim == 0:
        return np.zeros(x.shape, bool)
    moved = np.moveaxis(x, axis, -1)
    order = np.argsort(moved, axis=-1, kind="stable")
    s = np.take_along_axis(moved, order, -1)
    same = np.zeros(s.shape, bool)
    eq = s[..., 1:] == s[..., :-1]
    same[..., 1:] |= eq
    same[..., :-1] |= eq
    out = np.zeros(s.shape, bool)
    np.put_along_axis(out, order, same, -1)
    return np.moveaxis(out, -1, axis)
