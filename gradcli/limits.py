"""Resource limits: documented defaults, overridable by environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, fields


@dataclass(slots=True)
class Limits:
    """Bounds that keep every command fast and its memory bounded."""

    max_elements: int = 100_000_000  # elements in any one tensor (800 MB in float64)
    max_nodes: int = 2_000_000  # graph nodes, forward and gradient together
    max_depth: int = 200  # nesting depth of one expression (parentheses, calls, lists)
    sympy_timeout: float = 5.0  # wall-clock seconds for SymPy in a check, then fall back
    sympy_max_nodes: int = 400  # larger graphs are checked with finite differences


ENV = {
    "max_elements": "GRADCLI_MAX_ELEMENTS",
    "max_nodes": "GRADCLI_MAX_NODES",
    "max_depth": "GRADCLI_MAX_DEPTH",
    "sympy_timeout": "GRADCLI_SYMPY_TIMEOUT",
    "sympy_max_nodes": "GRADCLI_SYMPY_MAX_NODES",
}


def from_env(environ=os.environ) -> Limits:
    """Limits with every GRADCLI_* variable that is set applied."""
    from .errors import GradcliError

    limits = Limits()
    for f in fields(Limits):
        raw = environ.get(ENV[f.name])
        if raw is None or raw == "":
            continue
        try:
            value = type(getattr(limits, f.name))(raw)
        except ValueError:
            raise GradcliError(f"{ENV[f.name]}={raw!r} is not a number") from None
        if value <= 0:
            raise GradcliError(f"{ENV[f.name]} must be positive, got {raw}")
        setattr(limits, f.name, value)
    return limits


current = from_env({})  # replaced by the CLI at start-up; library users may assign fields
