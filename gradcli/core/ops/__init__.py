"""The op registry: importing this package registers every op (one block per op)."""

# isort: off
# registration order (importing registers): the order ops are listed in help and hints
from gradcli.core.ops import elementwise  # noqa: F401
from gradcli.core.ops import selection  # noqa: F401
from gradcli.core.ops import special  # noqa: F401
from gradcli.core.ops import gamma  # noqa: F401
from gradcli.core.ops import division  # noqa: F401
from gradcli.core.ops import kernels  # noqa: F401
from gradcli.core.ops import reduce  # noqa: F401
from gradcli.core.ops import scan  # noqa: F401
from gradcli.core.ops import cumulative  # noqa: F401
from gradcli.core.ops import activations  # noqa: F401
from gradcli.core.ops import indexing  # noqa: F401
from gradcli.core.ops import scatter  # noqa: F401
from gradcli.core.ops import sorting  # noqa: F401
from gradcli.core.ops import segments  # noqa: F401
from gradcli.core.ops import smooth_activations  # noqa: F401
from gradcli.core.ops import losses  # noqa: F401
from gradcli.core.ops import xent  # noqa: F401
from gradcli.core.ops import keras_losses  # noqa: F401
from gradcli.core.ops import norms  # noqa: F401
from gradcli.core.ops import statistics  # noqa: F401
from gradcli.core.ops import shapes  # noqa: F401
from gradcli.core.ops import layout  # noqa: F401
from gradcli.core.ops import tape  # noqa: F401
from gradcli.core.ops import linalg  # noqa: F401
from gradcli.core.ops import contract  # noqa: F401
from gradcli.core.ops import tiling  # noqa: F401
from gradcli.core.ops import padding  # noqa: F401
from gradcli.core.ops import conv  # noqa: F401
from gradcli.core.ops import pooling  # noqa: F401
from gradcli.core.ops import volumes  # noqa: F401
from gradcli.core.ops import matrix  # noqa: F401
from gradcli.core.ops import linalg_common  # noqa: F401
from gradcli.core.ops import solvers  # noqa: F401
from gradcli.core.ops import decompositions  # noqa: F401
from gradcli.core.ops import control  # noqa: F401
from gradcli.core.ops import unpacking  # noqa: F401
from gradcli.core.ops import random_ops  # noqa: F401

# isort: on
from gradcli.core.ops.control import resolve_cond
from gradcli.core.ops.registry import (
    ATOM,
    BRANCH,
    COMPARISON,
    CUSTOM,
    CUT,
    FORWARD,
    KINK,
    MASK,
    REGISTRY,
    SMOOTH,
    STOP,
    UNARY,
    ZERO,
    ZERO_GRAD,
    Attr,
    AttrKind,
    Behavior,
    GradBuilder,
    Op,
    Operator,
    Transport,
    binary_operators,
    const,
    emit,
    fit,
    materialize,
    public_ops,
    run_rule,
)

__all__ = [
    "ATOM",
    "BRANCH",
    "COMPARISON",
    "CUSTOM",
    "CUT",
    "FORWARD",
    "KINK",
    "MASK",
    "REGISTRY",
    "SMOOTH",
    "STOP",
    "UNARY",
    "ZERO",
    "ZERO_GRAD",
    "Attr",
    "AttrKind",
    "Behavior",
    "GradBuilder",
    "Op",
    "Operator",
    "Transport",
    "binary_operators",
    "const",
    "emit",
    "fit",
    "materialize",
    "public_ops",
    "resolve_cond",
    "run_rule",
]
