"""Comparing gradients with a reference: tolerances, verdicts and the elements that differ most.

An element agrees when |autodiff - reference| <= atol + rtol * |reference| + 2 * error,
error being the finite-difference error estimate (0 for SymPy). Non-finite values agree
when both sides are the same (nan and nan, inf and inf); opposite infinities disagree;
a non-finite value facing a finite one is not compared (TensorFlow's kernels give 0 * inf
= nan where the mathematical derivative is finite, and the reverse), and is counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gradcli.check.conventions import element_label

DEFAULT_TOLERANCES = {"float64": (1e-6, 1e-8), "float32": (1e-4, 1e-6)}
WORST = 5  # elements listed when a gradient disagrees


def tolerances(dtype: str, rtol: float | None, atol: float | None) -> tuple[float, float]:
    """(rtol, atol) for a target of this dtype, the given ones taking precedence."""
    d_rtol, d_atol = DEFAULT_TOLERANCES.get(dtype, DEFAULT_TOLERANCES["float64"])
    return (d_rtol if rtol is None else rtol, d_atol if atol is None else atol)


@dataclass
class InputCheck:
    """One gradient against its reference."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    method: str | None
    rtol: float
    atol: float
    autodiff: np.ndarray | None
    reference: np.ndarray | None = None
    verdict: str = "skipped"  # agree, convention, disagree or skipped
    max_abs_error: float = 0.0
    max_rel_error: float = 0.0
    checked: int = 0  # elements with a reference value
    not_compared: int = 0  # non-finite on one side only
    worst: list[dict] = field(default_factory=list)
    directional: dict | None = None
    note: str | None = None
    # elements where the gradient is a convention (a kink, a tie): agreeing there is agreeing
    # with TensorFlow's convention, not with a derivative (verdict `convention`)
    conventions: int = 0
    one_sided: list[dict] = field(default_factory=list)  # one-sided differences there

    @property
    def ok(self) -> bool:
        return self.verdict != "disagree"


def compare(check: InputCheck, reference, error=None, mask=None) -> InputCheck:
    """Fill check's verdict and errors from a reference (NaN-free where mask is True)."""
    shape = check.shape
    a = np.zeros(shape) if check.autodiff is None else np.asarray(check.autodiff, np.float64)
    r = np.asarray(reference, dtype=np.float64).reshape(shape)
    e = np.zeros(shape) if error is None else np.nan_to_num(np.asarray(error, np.float64))
    m = np.ones(shape, dtype=bool) if mask is None else np.asarray(mask, bool).reshape(shape)
    check.reference = r
    check.checked = int(m.sum())
    finite = m & np.isfinite(a) & np.isfinite(r)
    both_nonfinite = m & ~np.isfinite(a) & ~np.isfinite(r)
    same = both_nonfinite & ((np.isnan(a) & np.isnan(r)) | (a == r))
    opposite = both_nonfinite & np.isinf(a) & np.isinf(r) & (a != r)
    check.not_compared = int((m & ~finite & ~same & ~opposite).sum())
    with np.errstate(all="ignore"):
        diff = np.where(finite, np.abs(a - r), 0.0)
        tol = check.atol + check.rtol * np.abs(r) + 2 * e
        rel = np.where(finite & (r != 0), diff / np.abs(r), 0.0)
    failing = (finite & (diff > tol)) | opposite
    check.max_abs_error = float(diff.max()) if diff.size else 0.0
    check.max_rel_error = float(rel.max()) if rel.size else 0.0
    check.verdict = "disagree" if failing.any() else "agree"
    if check.directional is not None:
        d = check.directional
        d["ok"] = bool(abs(d["autodiff"] - d["reference"]) <= d["tolerance"])
        if not d["ok"]:
            check.verdict = "disagree"
    badness = np.where(failing, np.where(opposite, np.inf, diff), -1.0).reshape(-1)
    flat_a, flat_r = a.reshape(-1), r.reshape(-1)
    for k in np.argsort(-badness, kind="stable")[: min(int(failing.sum()), WORST)]:
        check.worst.append(
            {
                "element": element_label(check.name, shape, int(k)),
                "index": [int(i) for i in np.unravel_index(int(k), shape)] if shape else [],
                "autodiff": float(flat_a[k]),
                "reference": float(flat_r[k]),
                "abs_error": float(abs(flat_a[k] - flat_r[k])),
            }
        )
    if check.not_compared:
        check.note = (
            f"{check.not_compared} element{'s' * (check.not_compared > 1)} not compared: "
            "non-finite on one side only (such as 0 * inf inside a gradient kernel)"
        )
    return check


@dataclass
class CustomCheck:
    """A custom gradient against the true derivative of its function's body, at one call."""

    function: str
    at: str | None  # FILE:LINE:COL of the call
    parameter: str
    elements: int  # the parameter's elements
    mismatched: int
    factor: float | None
    message: str
    worst: list[dict] = field(default_factory=list)
    checked: bool = True  # False when the Jacobians were too big to compare

    @property
    def ok(self) -> bool:
        return self.mismatched == 0


def compare_custom(
    function, at, parameter, several, shapes, given, true, error, rtol, atol, columns=None
):
    """Compare the Jacobian a grad: gives (None: no gradient) with the body's, column by column.

    shapes = (output shape, parameter shape); a column is one element of the parameter,
    columns[c] the element of column c (every element in order by default).
    """
    out_shape, p_shape = shapes
    t = np.asarray(true, np.float64)
    g = np.zeros_like(t) if given is None else np.asarray(given, np.float64)
    e = np.zeros_like(t) if error is None else np.nan_to_num(np.asarray(error, np.float64))
    with np.errstate(all="ignore"):
        diff = np.abs(g - t)
        bad = ~(diff <= atol + rtol * np.abs(t) + 2 * e) & ~(np.isnan(g) & np.isnan(t))
    bad_columns = bad.any(axis=0) if bad.size else np.zeros(t.shape[1:], bool)
    n, m = int(bad_columns.size), int(bad_columns.sum())
    total = math.prod(p_shape)
    elements = list(range(total)) if columns is None else [int(c) for c in columns]
    # "2 of 3 elements", or "2 of 256 checked elements (of 900)" for a sample
    of_n = f"{n} element{'s' * (n != 1)}"
    if n < total:
        of_n = f"{n} checked elements (of {total:,})"
    which = f" for {parameter}" if several else ""
    factor = _factor(g[bad], t[bad], rtol) if given is not None and m else None
    if m == 0:
        message = f"{function}'s gradient{which} matches the derivative of its body at all {of_n}"
    elif given is None:
        message = (
            f"{function} gives no gradient{which}, but the derivative of its body is nonzero "
            f"at {m} of {of_n}"
        )
    elif factor is not None:
        message = (
            f"{function}'s gradient{which} is {factor:g}x the derivative of its body "
            f"at {m} of {of_n}"
        )
    else:
        message = (
            f"{function}'s gradient{which} differs from the derivative of its body at {m} of {of_n}"
        )
    check = CustomCheck(function, at, parameter, n, m, factor, message)
    for k, c in list(zip(*np.nonzero(bad)))[:WORST]:
        check.worst.append(
            {
                "output": element_label(function, out_shape, int(k)),
                "element": element_label(parameter, p_shape, elements[int(c)]),
                "gradient": float(g[k, c]),
                "derivative": float(t[k, c]),
            }
        )
    return check


def _factor(given, true, rtol) -> float | None:
    """The common ratio given / true of the mismatched entries, when there is one."""
    if given.size == 0 or np.any(true == 0) or not np.all(np.isfinite(given / true)):
        return None
    ratios = given / true
    first = float(ratios[0])
    if np.all(np.abs(ratios - first) <= max(rtol, 1e-9) * 10 * abs(first)):
        return float(np.round(first, 6))
    return None
