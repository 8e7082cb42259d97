"""--weights FILE.npz: the initial values of a program's Keras variables, by their paths.

Keys are the paths Keras gives variables (`dense/kernel`, `sequential/dense_1/bias`,
`lstm/lstm_cell/recurrent_kernel`), as `{v.path: v.numpy() for v in model.variables}`
saved with numpy.savez writes them. A variable whose path is a key starts from that array
(cast to the variable's dtype, as Keras's assign casts) instead of gradcli's seeded
initializer; later `set_weights`/`assign` calls in the program still apply. The archive is
read with gradcli's .npz reader (spec/array_files.py: never unpickled, sized first). The
reader (tfcode) only calls value() and check_all_used(), so it needs no file reader of its own.
A key whose shape differs from its variable's, or that names no variable of the program,
is an error naming the key (and both shapes).
"""

from __future__ import annotations

import numpy as np

from gradcli.runtime.errors import GradcliError, Pos
from gradcli.spec import array_files

SHOWN_PATHS = 10  # variable paths listed when a key matches none


class Weights:
    """The arrays of one .npz archive, read by key when a variable with that path is made."""

    def __init__(self, path: str):
        self.path = path
        self.keys = array_files.keys(path, path)
        self.used: set[str] = set()
        self.made: list[str] = []  # the paths of the variables the program made, in order

    def value(self, key: str, shape: tuple, dtype: str, pos: Pos) -> np.ndarray | None:
        """The array for variable `key` in its shape and dtype, or None when it has none."""
        self.made.append(key)
        if key not in self.keys:
            return None
        array = array_files.load(self.path, key, self.path)
        if tuple(array.shape) != tuple(shape):
            raise GradcliError(
                f"{self.path}: key '{key}' has shape {tuple(array.shape)}, but the program's "
                f"variable {key} has shape {tuple(shape)}",
                pos,
            )
        if array.dtype.kind not in "fiub":
            raise GradcliError(f"{self.path}: key '{key}' holds {array.dtype}, not numbers", pos)
        self.used.add(key)
        return array.astype(dtype)

    def check_all_used(self) -> None:
        """Every key must name a variable the program made (a typo is not silently ignored)."""
        unused = [k for k in self.keys if k not in self.used]
        if not unused:
            return
        paths = self.made
        known = ", ".join(paths[:SHOWN_PATHS]) + (", ..." if len(paths) > SHOWN_PATHS else "")
        names = ", ".join(f"'{k}'" for k in unused[:SHOWN_PATHS])
        raise GradcliError(
            f"{self.path}: {'key' if len(unused) == 1 else 'keys'} {names} "
            f"{'names' if len(unused) == 1 else 'name'} no Keras variable of the program "
            f"(its variables: {known or 'none'})"
        )
