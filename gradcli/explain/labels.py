"""Label arrays of the zero attribution: interned sets of findings, unions, reductions."""

from __future__ import annotations

import numpy as np

NONZERO = -1  # the gradient is nonzero at this element
UNFED = -2  # no gradient element reaches this one (indexing, exclusive cumsum)


class Labels:
    """Interned sets of finding indices; a label is the int naming one set."""

    def __init__(self):
        self.sets: list[frozenset[int]] = []
        self.ids: dict[frozenset[int], int] = {}

    def of(self, findings) -> int:
        key = frozenset(findings)
        label = self.ids.get(key)
        if label is None:
            label = self.ids[key] = len(self.sets)
            self.sets.append(key)
        return label

    def union(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Elementwise union; NONZERO on one side gives the other side."""
        a, b = np.broadcast_arrays(a, b)
        out = np.where(a < 0, b, a)
        both = (a >= 0) & (b >= 0) & (a != b)
        if both.any():
            pairs, inverse = np.unique(
                np.stack([a[both], b[both]], axis=1), axis=0, return_inverse=True
            )
            ids = [self.of(self.sets[p] | self.sets[q]) for p, q in pairs.tolist()]
            out[both] = np.asarray(ids, dtype=np.int64)[inverse.reshape(-1)]
        return out

    def union_all(self, arr: np.ndarray) -> int:
        """The union of every label in arr (NONZERO when there is none)."""
        found = np.unique(arr[arr >= 0])
        if found.size == 0:
            return NONZERO
        if found.size == 1:
            return int(found[0])
        return self.of(frozenset().union(*(self.sets[v] for v in found.tolist())))

    def reduce(self, arr: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        """Union over axes (keepdims); NONZERO where any element of the group is NONZERO."""
        if not axes:
            return arr
        if arr.size == 0:  # empty groups: no gradient element reaches these elements
            return np.full(tuple(1 if a in axes else d for a, d in enumerate(arr.shape)), UNFED)
        flows = (arr < 0).any(axis=axes, keepdims=True)
        lo = arr.min(axis=axes, keepdims=True)
        hi = arr.max(axis=axes, keepdims=True)
        out = np.where(flows, NONZERO, lo)
        mixed = ~flows & (lo != hi)
        if mixed.any():
            for pos in np.argwhere(mixed):
                group = tuple(slice(None) if a in axes else p for a, p in enumerate(pos))
                out[tuple(pos)] = self.union_all(arr[group])
        return out

    def reduce_to(self, arr: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """arr (broadcast from shape) reduced back to shape, the way `fit` sums gradients."""
        if arr.shape == tuple(shape):
            return arr
        return self.reduce(arr, broadcast_axes(arr.shape, shape)).reshape(shape)


def broadcast_axes(big: tuple[int, ...], small: tuple[int, ...]) -> tuple[int, ...]:
    """The axes of `big` that broadcasting `small` up to it created or stretched."""
    lead = len(big) - len(small)
    stretched = (lead + t for t, d in enumerate(small) if d == 1 and big[lead + t] != 1)
    return (*range(lead), *stretched)


def sum_to(arr: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if arr.shape == tuple(shape):
        return arr
    return arr.sum(axis=broadcast_axes(arr.shape, shape), keepdims=True).reshape(shape)
