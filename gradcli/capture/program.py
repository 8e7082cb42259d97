"""The captured program: what a framework did while a script ran, in framework-neutral terms.

A capture records every framework operation the script performed (`Operation`: its name,
kind, input and output values, the script line, the grad mode, the module it ran in), the
values those operations made (`Value`), and every gradient call (`GradientCall`) with the
gradients the framework returned and how the gradient flowed through each recorded
operation. Values that left the framework (`.item()`, `.numpy()`) and came back
(`torch.tensor(...)`) are edges too, so the diagnosis sees the whole data flow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class OpKind(str, Enum):
    """What an operation does to the data flow (the diagnosis reads only this)."""

    COMPUTE = "compute"  # an ordinary operation (differentiable or not, see Operation)
    CREATE = "create"  # a tensor made from nothing or from Python values of unknown origin
    DETACH = "detach"  # .detach(), .data: the same values, no gradient
    EXIT = "exit"  # the value leaves the framework: .item(), .numpy(), .tolist(), float()
    REWRAP = "rewrap"  # a new tensor built from values: torch.tensor(...), from_numpy
    INPLACE = "inplace"  # writes into an existing value (its version moves)
    CAST_INT = "cast_int"  # a cast to an integer or bool dtype
    SET_REQUIRES_GRAD = "set_requires_grad"  # requires_grad = ..., requires_grad_()
    READ_GRAD = "read_grad"  # .grad read
    SET_GRAD = "set_grad"  # .grad = None / zeros (zero_grad)
    GRAD_MODE = "grad_mode"  # grad mode switched (with torch.no_grad(): ...)
    CUSTOM = "custom_function"  # a user-defined autograd Function applied


@dataclass
class Value:
    """A tensor the framework made, as it was when it was made."""

    id: int
    shape: tuple
    dtype: str
    requires_grad: bool
    leaf: bool
    op: int | None  # the operation that made it (None: made outside any captured operation)
    line: int | None
    floating: bool = True
    finite: bool = True  # no NaN or Inf when it was made
    inference: bool = False  # made under inference mode
    grad_node: str | None = None  # the framework's name of its gradient node (ReluBackward0)
    parameter: bool = False
    in_forward: bool = False  # made while some module's forward ran
    span: tuple | None = None  # (line, end line, col, end col) where made outside any op


@dataclass
class Operation:
    """One framework operation the script performed."""

    index: int
    name: str  # the framework's name: relu, Tensor.detach, Tensor.item
    kind: OpKind
    inputs: tuple[int, ...]  # value ids
    outputs: tuple[int, ...]
    line: int | None
    file: str | None
    grad_enabled: bool = True
    inference: bool = False
    module: int | None = None  # the innermost module whose forward ran it (capture's id)
    records_gradient: bool = False  # some output carries a gradient node
    exits: tuple[int, ...] = ()  # for a REWRAP: the EXIT operations whose Python values it took
    extra: dict = field(default_factory=dict)  # kind-specific: version, value, in forward...


@dataclass
class GradNode:
    """One node of a call's gradient graph: the operation that made it (its owner: the
    nearest recorded operation above it), its children per input slot, the leaf it
    accumulates into, and how the gradient passed through it (from a hook that only reads:
    (elements, zeros, non-finite) out, and per slot in, None where it returned none)."""

    op: int | None
    children: tuple  # per slot: a node index, or None
    leaf: int | None = None  # value id, for a node that accumulates into a leaf
    out: tuple | None = None  # (elements, zeros, non-finite) of the gradient it received
    slots: tuple | None = None  # per slot: (elements, zeros, non-finite) or None
    # per slot, (kind, elements) of the zeros born here as the edge read them from the
    # framework's arrays (kind None: it made none), None where unread
    read: tuple | None = None


@dataclass
class Gradient:
    """One gradient a call produced, as the framework holds it."""

    name: str
    value_id: int | None
    value: object  # nested lists (the framework's numbers), None for None
    shape: tuple | None
    dtype: str | None
    status: str
    elements: int = 0
    zero_elements: int = 0
    nonfinite_elements: int = 0
    reached: bool = True  # the call's gradient graph reaches the tensor
    requires_grad: bool = True
    leaf: bool = True
    note: str | None = None
    read: bool = True  # its numbers were read (a traced step's when the step first runs)


@dataclass
class GradientCall:
    """One gradient call: backward() or autograd.grad()."""

    index: int
    kind: str  # "backward" | "grad"
    line: int | None
    file: str | None
    roots: list[int]
    root_names: list[str]
    first_op: int  # operations before this index ran before the call
    function: str | None = None  # the function (frame) the call was made in
    last_op: int = -1  # operations from this index on ran after it
    gradients: list[Gradient] = field(default_factory=list)
    nodes: list[GradNode] = field(default_factory=list)  # the gradient graph; roots first
    reached_ops: set[int] = field(default_factory=set)  # ops whose gradient node it traversed
    error: dict | None = None  # {"type", "message", "line"}
    retain_graph: bool = False
    complete: bool = True  # the walk of the gradient graph reached its end (MAX_NODES)
    contributions: dict = field(default_factory=dict)  # value id -> (n, zeros, non-finite)
    notes: list[str] = field(default_factory=list)  # what the reader should know (tf)
    via: str | None = None  # the library transform that made the call (torch.func)


@dataclass
class Optimizer:
    """An optimizer the script built, and what became of it."""

    id: int
    name: str  # SGD, Adam
    line: int | None
    params: set[int] = field(default_factory=set)  # value ids
    steps: list[dict] = field(default_factory=list)  # {"op": index, "line", "missing": [ids]}


@dataclass
class ProgramError:
    """What the script raised (it stops there)."""

    type: str
    message: str
    line: int | None
    file: str | None
    op: int  # operations before this index ran before it
    in_call: int | None = None  # the gradient call it was raised in
    function: str | None = None  # the function (frame) it was raised in
    stack: tuple = ()  # (file, line, function) of its user frames, innermost first


@dataclass
class Captured:
    """Everything captured from one run of a script."""

    file: str
    framework: str
    lines: list[str]
    ops: list[Operation] = field(default_factory=list)
    values: dict[int, Value] = field(default_factory=dict)
    calls: list[GradientCall] = field(default_factory=list)
    optimizers: list[Optimizer] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)  # value id -> the script's name
    modules: dict[int, str] = field(default_factory=dict)  # module id -> its path (model.fc1)
    registered: dict[int, str] = field(default_factory=dict)  # findings: id -> detail
    error: ProgramError | None = None
    stopped: str | None = None  # why the script was stopped early ("calls", "timeout")
    exit_code: int | None = None  # the script called sys.exit(n), n != 0
    facts: dict = field(default_factory=dict)  # the edge's readings of errors (see diagnosis)

    @property
    def framework_name(self) -> str:
        """The framework as people write it (PyTorch, TensorFlow)."""
        return {"torch": "PyTorch", "tf": "TensorFlow"}.get(self.framework, self.framework)

    def source(self, line: int | None) -> str:
        """The script's text at a line (stripped), '' when unknown."""
        if line is None or not 1 <= line <= len(self.lines):
            return ""
        return self.lines[line - 1].strip()
