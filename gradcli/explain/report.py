"""explain's vocabulary, defined once: the status of a gradient and the kinds of cause.

Scripts match on these strings (JSON `status`, `causes[].kind`, `origin`), so they are a
fixed, documented vocabulary (docs/explain.md). Members are str-valued: they compare
equal to, print as and serialise as their value.
"""

from __future__ import annotations

from enum import Enum

from gradcli.core.ops.tape import TapeCause


class Word(str, Enum):
    """A str-valued enum member that prints and formats as its value."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class Status(Word):
    """What a gradient is, from most to least healthy."""

    CONNECTED = "connected"
    PARTIALLY_ZERO = "partially_zero"
    ZERO = "zero"
    UNCONNECTED = "unconnected"
    NON_FINITE = "non_finite"  # the gradient or the output holds NaN or Inf


# the statuses a script's gradient may have without setting exit status 1, whichever way
# the script is read (statically or with --run): some zeros are normal in a network
FINE_IN_SCRIPTS = frozenset((Status.CONNECTED, Status.PARTIALLY_ZERO))


class CauseKind(Word):
    """Why a gradient is None, zero or non-finite: `causes[].kind`."""

    # structural: no path, or a path cut
    NO_PATH = "no_path"
    STOP_GRADIENT = "stop_gradient"
    NON_DIFFERENTIABLE = "non_differentiable"
    UNTAKEN_BRANCH = "untaken_branch"
    INTEGER = "integer"
    # numeric: a connected gradient that is zero at some elements
    MASK = "mask"
    INACTIVE = "inactive"
    ZERO_UPSTREAM = "zero_upstream"
    CANCELLATION = "cancellation"
    ZERO_DERIVATIVE = "zero_derivative"
    UNSELECTED = "unselected"
    UNDERFLOW = "underflow"
    # code-level, from the TensorFlow reader's tape boundaries (named once, in core)
    LEAVES_TAPE = TapeCause.LEAVES_TAPE.value
    NOT_WATCHED = TapeCause.NOT_WATCHED.value
    OUTSIDE_TAPE = TapeCause.OUTSIDE_TAPE.value
    # NaN/Inf
    NON_FINITE = "non_finite"
    # run mode (--run): what the framework did while the script ran
    DETACH = "detach"
    NO_GRAD = "no_grad"
    LEAVES_AUTOGRAD = "leaves_autograd"
    REWRAPPED = "rewrapped"
    REQUIRES_GRAD_FALSE = "requires_grad_false"
    NON_LEAF = "non_leaf"
    NOT_REGISTERED = "not_registered"
    NOT_IN_OPTIMIZER = "not_in_optimizer"
    ZERO_GRAD_MISUSE = "zero_grad_misuse"
    INPLACE = "inplace"
    BACKWARD_TWICE = "backward_twice"
    CUSTOM_FUNCTION = "custom_function"
    UNKNOWN = "unknown"  # gradcli cannot tell beyond a line


class OriginKind(Word):
    """Where a NaN or Inf was born: `causes[].origin` of a non_finite cause."""

    WHERE_TRAP = "where_trap"
    SINGULAR = "singular_derivative"
    PROPAGATED = "propagated"
    OVERFLOW = "overflow"
    FORWARD = "forward"


STATUSES = tuple(Status)
ORIGINS = (
    OriginKind.WHERE_TRAP,
    OriginKind.SINGULAR,
    OriginKind.PROPAGATED,
    OriginKind.OVERFLOW,
    OriginKind.FORWARD,
)
