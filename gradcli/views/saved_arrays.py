"""--save FILE: results in NumPy's .npz format, and what the printed output says instead.

Keys: `outputs/NAME` and `gradients/NAME` (eval), `jacobian/OUTPUT/WRT` and
`hessian/WRT/WRT` (jacobian, hessian), `derivative/W1/.../WN` (derivative). A None
result has no array; its name (the part after the section, e.g. `x` or `y/x`) is listed
in the string array `none`.
"""

from __future__ import annotations

import os

import numpy as np

from gradcli.runtime.errors import GradcliError

NONE_KEY = "none"
OUTPUTS = "outputs"
GRADIENTS = "gradients"


def key(section: str, *names: str) -> str:
    """The .npz key of a result: outputs/loss, gradients/x, jacobian/y/x."""
    return "/".join((section, *names))


def reference(path: str, array_key: str) -> str:
    """How plain output points at a saved array: @FILE:KEY, as --at reads it back."""
    return f"@{path}:{array_key}"


def check_target(path: str) -> None:
    """Refuse a --save path that cannot be written, before any work is done."""
    if not path:
        raise GradcliError("--save needs a file name")
    if os.path.isdir(path):
        raise GradcliError(f"--save {path}: it is a directory")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise GradcliError(f"--save {path}: the directory {parent} does not exist")


def save(path: str, arrays: dict[str, np.ndarray], none: list[str]) -> None:
    """Write the arrays, and the names of the None results under `none`, as an .npz file."""
    payload = {k: np.asarray(v) for k, v in arrays.items()}
    payload[NONE_KEY] = np.array(none, dtype=str)  # a unicode array: loads without pickle
    try:
        with open(path, "wb") as fh:  # a handle: np.savez would append .npz to a name
            np.savez(fh, **payload)
    except OSError as exc:
        raise GradcliError(f"--save {path}: cannot write it: {exc.strerror or exc}") from None
