"""Masks of the NaN and ±Inf elements of values (light: eval's cheap path imports it)."""

from __future__ import annotations

import numpy as np


def non_finite(value) -> np.ndarray:
    """Boolean mask of the NaN and ±Inf elements (all False for integer and bool values)."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "fc":
        return np.zeros(arr.shape, bool)
    return ~np.isfinite(arr)


def has_non_finite(value) -> bool:
    """True when a value holds a NaN or an Inf."""
    return value is not None and bool(np.any(non_finite(value)))
