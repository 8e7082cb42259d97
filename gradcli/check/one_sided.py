"""One-sided finite differences at the elements where a gradient is a convention.

Central differences straddle a kink and average its sides, and the references freeze a
kink on TensorFlow's side (Op.at_point), so neither says what the function does there.
This module perturbs each such element of a target by -h and +h alone, with the kinks left
free (every op's own forward), everything else as finite_differences.Loss holds it (what
the gradient treats as constant stays at its value), and reports the two slopes.
"""

from __future__ import annotations

import math

import numpy as np

from gradcli.check.conventions import element_label, follows
from gradcli.check.finite_differences import Loss
from gradcli.core.ops import REGISTRY, Behavior

STEP = 2.0**-20  # small: a one-sided slope has an O(h) error, and no kink is crossed
LISTED = 20  # elements differenced per gradient


class FreeLoss(Loss):
    """The loss with every kink free: each op runs its own forward, no at_point side."""

    def _node(self, node, cur):
        spec = REGISTRY[node.op]
        if spec.behavior in (Behavior.BRANCH, Behavior.CUSTOM) or not callable(spec.at_point):
            return super()._node(node, cur)
        base = self.base
        args = [cur[j] if j in cur else base.get(j) for j in follows(node)]
        fn = self.forwards.get(node.id)
        if fn is None:
            fn = self.forwards[node.id] = spec.fn(node.attrs)
        return fn(*args)


def differences(problem, values: dict, t: int, sites) -> list[dict]:
    """[{element, index, below, above}] for the target's own elements at a convention."""
    flat = []
    for site in sites:
        if not site.direct:
            continue
        for index in site.elements:
            k = int(np.ravel_multi_index(index, site.shape)) if index else 0
            if k not in flat:
                flat.append(k)
    if not flat:
        return []
    loss = FreeLoss(problem, values)
    if t not in loss.base:
        return []
    chain = loss.chain(t)
    x0 = np.array(loss.base[t], dtype=np.float64)
    shape = x0.shape
    base = loss(t, float(x0) if not shape else x0, chain)
    out = []
    for k in flat[:LISTED]:
        h = STEP * max(abs(float(x0.reshape(-1)[k])), 1.0)
        slopes = []
        for sign in (-1.0, 1.0):
            moved = x0.copy()
            moved.reshape(-1)[k] += sign * h
            value = loss(t, float(moved) if not shape else moved, chain)
            slopes.append(sign * (value - base) / h + 0.0)  # + 0.0: no -0
        below, above = (_rounded(s) for s in slopes)
        index = [int(i) for i in np.unravel_index(k, shape)] if shape else []
        name = problem.graph[t].name
        out.append({"element": element_label(name, shape, k), "index": index,
                    "below": below, "above": above})  # fmt: skip
    return out


def _rounded(v: float) -> float:
    """A one-sided slope to 6 significant digits (its error is about h)."""
    if not math.isfinite(v) or v == 0:
        return v
    return float(f"{v:.6g}")
