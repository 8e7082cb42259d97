"""Helpers for the ops' SymPy translations (the `sympy=` entry of an op block).

A translation is `sympy(sp, attrs, args, values) -> array`:

- `sp` is the sympy module, passed in so that ops never import it;
- `args` are the op's inputs as numpy object arrays of SymPy expressions, so numpy's
  broadcasting, indexing, reshape, transpose and matmul work on them unchanged;
- `values` are the same inputs' values at the evaluation point (numpy arrays). Kinks and
  ties use them to pick the side the core's gradient takes there (relu at 0 is the
  constant 0, a tie in maximum selects the first argument), so the SymPy derivative
  follows gradcli's conventions while being derived from the forward op alone.

The result is an object array with the op's output shape. Ops whose gradient is cut
(comparisons, rounding, stop_gradient, sign) have no translation: the translator uses
their value at the point as a constant.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.core.ops.infer import normalize_axes


def obj(value) -> np.ndarray:
    """value as a numpy object array (a 0-d array for a single expression)."""
    if isinstance(value, np.ndarray):
        return value if value.dtype == object else value.astype(object)
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def apply(fn, *arrays) -> np.ndarray:
    """fn on every element of the broadcast arrays, as an object array."""
    return obj(np.frompyfunc(fn, len(arrays), 1)(*arrays))


# Non-finite values are symbols bound to their value when evaluated (see symbolic.py):
# SymPy would turn x * nan into nan, and a sum with one nan term into nan, whose
# derivative it takes as 0 (every element's), where the gradient is nan in one place.
NONFINITE = {"<nan>": math.nan, "<inf>": math.inf, "<-inf>": -math.inf}


def nonfinite(sp, value: float):
    """The symbol standing for nan, inf or -inf."""
    name = "<nan>" if math.isnan(value) else ("<inf>" if value > 0 else "<-inf>")
    return sp.Symbol(name, real=True)


def number(sp, value):
    """A value at the point as an exact SymPy number (integral values become Integers);
    nan, inf and -inf as their symbols."""
    v = float(value)
    if not math.isfinite(v):
        return nonfinite(sp, v)
    if v == int(v) and abs(v) < 2.0**53:
        return sp.Integer(int(v))
    # 17 significant digits: printed (by lambdify) and read back as the same float64
    return sp.Float(v, 17)


def each(fn):
    """A translation applying fn(sp, *elements) to every element of the broadcast inputs."""

    def translate(sp, attrs, args, values):
        return apply(lambda *xs: fn(sp, *xs), *args)

    return translate


def each_at(fn):
    """Like each, with the inputs' values at the point: fn(sp, elements, values)."""

    def translate(sp, attrs, args, values):
        n = len(args)
        return apply(lambda *xs: fn(sp, xs[:n], xs[n:]), *args, *values)

    return translate


def reduce_rows(name, attrs, arr, values, fn) -> np.ndarray:
    """fn(elements, element_values) over the reduced axes, for every position kept."""
    arr, vals = obj(arr), np.asarray(values)
    axes = normalize_axes(name, attrs.get("axis"), arr.ndim)
    axes = tuple(range(arr.ndim)) if axes is None else axes
    kept = [a for a in range(arr.ndim) if a not in axes]
    kept_shape = tuple(arr.shape[a] for a in kept)
    count = math.prod(arr.shape[a] for a in axes)
    rows = arr.transpose(kept + list(axes)).reshape((*kept_shape, count))
    row_vals = vals.transpose(kept + list(axes)).reshape((*kept_shape, count))
    out = np.empty(kept_shape, dtype=object)
    for idx in np.ndindex(kept_shape):
        out[idx] = fn(list(rows[idx]), row_vals[idx])
    if attrs.get("keepdims"):
        out = out.reshape(tuple(1 if a in axes else d for a, d in enumerate(arr.shape)))
    return out


def scan_rows(axis: int, arr, values, fn) -> np.ndarray:
    """fn(elements, element_values) -> a list of the same length, along one axis."""
    moved = np.moveaxis(obj(arr), axis, -1)
    moved_vals = np.moveaxis(np.asarray(values), axis, -1)
    out = np.empty(moved.shape, dtype=object)
    for idx in np.ndindex(moved.shape[:-1]):
        row = fn(list(moved[idx]), moved_vals[idx])
        for k, e in enumerate(row):
            out[(*idx, k)] = e
    return np.moveaxis(out, -1, axis)


def finite_max(values) -> float:
    """The largest value when it is finite, else 0: the shift of a stable softmax/logsumexp."""
    m = float(np.max(values)) if np.size(values) else 0.0
    return m if math.isfinite(m) else 0.0
