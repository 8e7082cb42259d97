"""Whether the framework a script needs is installed, asked without importing it."""

from __future__ import annotations

import importlib.util

from gradcli.runtime.errors import GradcliError


def require(module: str, name: str, hint: str = "") -> None:
    """Exit 2 with one line when `module` cannot be imported here (it is not imported)."""
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise GradcliError(f"--run needs {name} in this Python environment{hint}")
