"""Comparing gradcli's gradients with the ones TensorFlow recorded (tools/tf_code_reference.py
JSON), shared by the static reader's reference tests."""

from __future__ import annotations

import numpy as np

ULPS = 4
CODE_KINDS = {"leaves_tape", "not_watched", "outside_tape", "stop_gradient", "untaken_branch",
              "integer", "non_differentiable", "no_path"}  # fmt: skip


def decode(enc: dict) -> np.ndarray:
    dtype = np.dtype(enc["dtype"])
    flat = np.array(enc["value"], dtype=object).reshape(-1)
    if dtype.kind == "f":
        flat = [float(v) if isinstance(v, str) else v for v in flat]
    return np.array(flat, dtype=dtype).reshape(enc["shape"])


def agree(got, want: dict | None, exact: bool, rel: float = 0.0) -> str | None:
    if want is None or got is None:
        return None if want is None and got is None else f"TF {want}, gradcli {got}"
    got = np.asarray(got)
    if got.dtype.name != want["dtype"] or list(got.shape) != want["shape"]:
        return f"dtype/shape {got.dtype}{got.shape}, TF {want['dtype']}{want['shape']}"
    if not exact:
        return None
    w = decode(want)
    if w.dtype.kind != "f":
        return None if np.array_equal(got, w) else f"{got} != {w}"
    if not np.array_equal(np.isnan(got), np.isnan(w)) or not np.array_equal(got == 0, w == 0):
        return f"{got.tolist()} != {w.tolist()}"
    scale = np.spacing(np.maximum(np.abs(w), np.finfo(w.dtype).tiny)) * ULPS
    scale = np.maximum(scale, rel * np.abs(w))
    ok = np.isnan(w) | (got == w) | (np.abs(got.astype(float) - w) <= scale)
    return None if np.all(ok) else f"{got.tolist()} != {w.tolist()}"
