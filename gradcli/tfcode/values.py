"""The values the abstract interpreter computes with (nothing here wraps real objects).

Python numbers, strings, None, lists, tuples and dicts are themselves. Tensors are node ids
in the program graph; everything else is one of the small records below.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from enum import Enum

from gradcli.runtime.errors import Pos

TF, NP, PY = "tf", "np", "py"  # what kind of value a Tensor is: a tf tensor, a NumPy array,
# or a Python number/list made from a tensor (float(t), t.item(), t.tolist())


@dataclass(frozen=True)
class Tensor:
    """A node of the program graph; kind says whether TensorFlow, NumPy or Python holds it."""

    id: int
    kind: str = TF


@dataclass(eq=False)
class Variable:
    """A tf.Variable: its current value (a leaf node, replaced by assign), name, trainable."""

    value: int
    label: str  # the Python name it was first bound to, or its name=
    trainable: bool
    pos: Pos
    tf_name: str | None = None
    versions: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Module:
    """tf, np, tf.math ...: a dotted name, resolved when called or read."""

    path: str


@dataclass(frozen=True)
class DType:
    name: str


class Wrapper(str, Enum):
    """A decorator (or wrapping call) the reader reads: how a call of the function is read."""

    CUSTOM_GRADIENT = "tf.custom_gradient"  # a custom node whose gradient is the grad function
    TF_FUNCTION = "tf.function"  # the Python function itself, with a note on the calls


@dataclass(eq=False)
class PyFunction:
    """A def or lambda: inlined at each call (through its wrappers, outermost first)."""

    name: str
    args: ast.arguments
    body: list  # statements (a lambda's body is one Return)
    scope: dict  # the defining scope (closures see it)
    pos: Pos
    wrappers: tuple = ()  # Wrapper values, outermost first
    signature: object = None  # a tf.function's input_signature, as given (signatures.py)
    autograph: bool = True  # a tf.function's autograph= (False: its code is not converted)
    defaults: list = field(default_factory=list)  # values of the positional defaults
    kw_defaults: list = field(default_factory=list)  # keyword-only defaults (None: required)


@dataclass(eq=False)
class Tape:
    """A tf.GradientTape: which graph nodes it records or watches, and when it records."""

    number: int
    persistent: bool
    watch_accessed: bool
    pos: Pos
    start: int = 0  # graph size when its with block began (nodes from here on are recorded)
    end: float = float("inf")  # graph size when the block ended
    end_line: int | None = None
    on: set = field(default_factory=set)  # node ids it recorded or watches
    watched_at: dict = field(default_factory=dict)  # node id -> graph size at tape.watch
    used: bool = False
    active: bool = False
    label: str = "GradientTape"  # the name its with statement binds (explain's entry)
    trace: object = None  # the @tf.function call (functions.Trace) it was made in, if any

    def recording(self, node: int) -> bool:
        return self.start <= node < self.end


@dataclass(frozen=True)
class Method:
    """obj.name, called later."""

    obj: object
    name: str


@dataclass(frozen=True)
class Session:
    pass


@dataclass(frozen=True)
class GraphOp:
    """A TF1 graph operation that computes no tensor (an initializer): Session.run gives None."""

    name: str


class Unknown:
    """What a refused construct evaluates to: every use of it is silently unknown too."""

    def __repr__(self) -> str:
        return "Unknown"


UNKNOWN = Unknown()


class Opaque(Unknown):
    """A value computed by code gradcli does not read (a name imported from the user's own
    module, what calling it returns, and everything computed from that): carried on, never
    computed. `line` is where the program first left what gradcli reads."""

    def __init__(self, line: int, what: str):
        self.line, self.what = line, what

    def __repr__(self) -> str:
        return f"Opaque(line {self.line}: {self.what})"

    def attribute(self, name: str) -> Opaque:
        return Opaque(self.line, f"{self.what}.{name}")

    def called(self, node) -> Opaque:
        """What calling it returns: unknown beyond the call's line."""
        return Opaque(node.lineno, _code(node))

    def reason(self) -> str:
        return f"unknown beyond line {self.line}: {self.what} is code gradcli does not read"


def _code(node) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= 60 else text[:57] + "..."


def first_opaque(values) -> Opaque | None:
    """The first Opaque among values (nested lists, tuples and dicts), else None."""
    stack = list(values)[::-1]
    while stack:
        v = stack.pop()
        if isinstance(v, Opaque):
            return v
        if isinstance(v, (list, tuple)):
            stack.extend(list(v)[::-1])
        elif isinstance(v, dict):
            stack.extend(list(v.values())[::-1])
    return None
