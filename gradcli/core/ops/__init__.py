"""The op registry: importing this package registers every op."""

from gradcli.core.ops import (
    math,
    reduce,
    structure,  # noqa: F401  (registration side effects)
)
from gradcli.core.ops.registry import (
    BRANCH,
    CUSTOM,
    CUT,
    KINK,
    MASK,
    REGISTRY,
    SMOOTH,
    STOP,
    ZERO,
    ZERO_GRAD,
    GradBuilder,
    Op,
    const,
    emit,
    fit,
    materialize,
    public_ops,
    run_rule,
)
from gradcli.core.ops.structure import resolve_cond

__all__ = [
    "BRANCH",
    "CUSTOM",
    "CUT",
    "KINK",
    "MASK",
    "REGISTRY",
    "SMOOTH",
    "STOP",
    "ZERO",
    "ZERO_GRAD",
    "GradBuilder",
    "Op",
    "const",
    "emit",
    "fit",
    "materialize",
    "public_ops",
    "resolve_cond",
    "run_rule",
]
