"""The SymPy translation's fingerprint at a point, computed without SymPy.

The ops' SymPy translations take the sympy module as an argument (ops/sym.py). Here they
are run with a stand-in module whose "expressions" only record how they were built: each
is a node (operation, arguments), identical constructions shared. What the translation
makes of the values at the point (the side of a kink taken, a frozen node's constant, a
selected element, an index) shows in that record, so two points with the same record
give SymPy the same calls in the same order, hence the same expression and the same
derivative: the cache (cache.py) reuses a derivative only under the same fingerprint.

The stand-in fails closed: anything that would look at an expression (its truth value, a
conversion to float, an attribute, comparing it with a number) raises Untraceable, and
the spec is then not cached at all. A translation that asked such a question could take a
path SymPy does not take, and the record would no longer describe SymPy's work.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from gradcli.check import sympy_translation as symbolic
from gradcli.core.graph import is_float
from gradcli.core.ops.sym import NONFINITE


class Untraceable(Exception):
    """The translation looked at an expression: its SymPy work cannot be fingerprinted."""


class Node:
    """One recorded construction: `Tracer.nodes[id]` is (operation, argument keys)."""

    __slots__ = ("id", "path", "tracer")

    def __init__(self, tracer: Tracer, id: int, path: str | None = None):
        self.tracer = tracer
        self.id = id
        self.path = path  # a name of the stand-in module (sp.exp, sp.S.Half), else None

    # building: every operator records a node
    def _op(self, name, *args):
        return self.tracer.make(name, args)

    def __add__(self, other):
        return self._op("+", self, other)

    def __radd__(self, other):
        return self._op("+", other, self)

    def __sub__(self, other):
        return self._op("-", self, other)

    def __rsub__(self, other):
        return self._op("-", other, self)

    def __mul__(self, other):
        return self._op("*", self, other)

    def __rmul__(self, other):
        return self._op("*", other, self)

    def __truediv__(self, other):
        return self._op("/", self, other)

    def __rtruediv__(self, other):
        return self._op("/", other, self)

    def __pow__(self, other):
        return self._op("**", self, other)

    def __rpow__(self, other):
        return self._op("**", other, self)

    def __neg__(self):
        return self._op("neg", self)

    def __pos__(self):
        return self._op("pos", self)

    def __abs__(self):
        return self._op("abs", self)

    def __lt__(self, other):
        return self._op("<", self, other)

    def __le__(self, other):
        return self._op("<=", self, other)

    def __gt__(self, other):
        return self._op(">", self, other)

    def __ge__(self, other):
        return self._op(">=", self, other)

    def __call__(self, *args, **kwargs):
        return self.tracer.make("call", (self, *args), kwargs)

    def __getattr__(self, name):
        # a method or property (m.det(), m.T) builds from the expression: recorded; looking
        # at what it gives (a truth value, a length) raises
        if name.startswith("_"):
            raise AttributeError(name)
        if self.path is not None:
            return self.tracer.module_attr(f"{self.path}.{name}")
        return self.tracer.make(f"attr {name}", (self,))

    # looking: SymPy would answer from the expression; the record cannot
    def __eq__(self, other):
        if isinstance(other, Node):
            return self is other  # shared constructions: the same node
        raise Untraceable("an expression was compared")

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return self.id

    def _look(self, *_):
        raise Untraceable("an expression was inspected")

    __bool__ = __float__ = __int__ = __index__ = __complex__ = __len__ = __iter__ = _look
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __matmul__ = __rmatmul__ = _look


class _Function:
    """The stand-in for sp.Function: a subclass applied to arguments records a node."""

    _tracer: Tracer | None = None

    def __new__(cls, *args):
        if cls._tracer is None:
            raise Untraceable("a function outside a trace")
        return cls._tracer.make(f"function {cls.__qualname__}", args)


class Module:
    """The stand-in for the sympy module."""

    def __init__(self, tracer: Tracer):
        self._tracer = tracer
        self.Function = type("Function", (_Function,), {"_tracer": tracer})

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._tracer.module_attr(name)


class Tracer:
    """The record of one translation: nodes by id, identical constructions shared."""

    def __init__(self):
        self.nodes: list[tuple] = []
        self._ids: dict[tuple, Node] = {}
        self.module = Module(self)

    def module_attr(self, path: str) -> Node:
        return self._intern(("name", path), path)

    def make(self, op: str, args, kwargs=None) -> Node:
        key = (op, tuple(self.key(a) for a in args))
        if kwargs:
            key += (tuple(sorted((k, self.key(v)) for k, v in kwargs.items())),)
        return self._intern(key)

    def _intern(self, key: tuple, path: str | None = None) -> Node:
        node = self._ids.get(key)
        if node is None:
            node = Node(self, len(self.nodes), path)
            self.nodes.append(key)
            self._ids[key] = node
        return node

    def key(self, value):
        """A value as it enters the record: nodes by id, numbers exactly, with their type."""
        if isinstance(value, Node):
            if value.tracer is not self:
                raise Untraceable("a node of another trace")
            return ("n", value.id)
        if isinstance(value, (bool, np.bool_)):
            return ("b", bool(value))
        if isinstance(value, (int, np.integer)):
            return ("i", type(value).__name__, int(value))
        if isinstance(value, (float, np.floating)):
            return ("f", type(value).__name__, float(value).hex())
        if isinstance(value, str):
            return ("s", value)
        if value is None:
            return ("none",)
        if isinstance(value, (tuple, list)):
            return ("seq", type(value).__name__, tuple(self.key(v) for v in value))
        if isinstance(value, np.ndarray):
            return ("array", value.shape, tuple(self.key(v) for v in value.reshape(-1).tolist()))
        raise Untraceable(f"a {type(value).__name__} argument")

    def closure(self, roots) -> list[int]:
        """The ids every root depends on, ascending (iteratively)."""
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            stack.extend(_node_ids(self.nodes[i]))
        return sorted(seen)


def _node_ids(key) -> list[int]:
    out = []
    stack = [key]
    while stack:
        k = stack.pop()
        if isinstance(k, tuple):
            if len(k) == 2 and k[0] == "n" and isinstance(k[1], int):
                out.append(k[1])
            else:
                stack.extend(k)
    return out


class TracingContext(symbolic.Context):
    """symbolic.Context with the stand-in module: the same translate(), recorded."""

    def __init__(self, graph, tracer: Tracer):
        self.sp = tracer.module
        self.graph = graph
        self.deadline = None
        self.symbols = {}
        self.customs = {}
        self._numbers = {}
        # the same symbols for nan, inf and -inf as SymPy's context: bindings() follows them
        self.fixed = {self.sp.Symbol(name, real=True): v for name, v in NONFINITE.items()}
        self.shown = {}
        self.application = None
        self.tracer = tracer

    def _custom(self, node, exprs, values):
        raise Untraceable("a custom function")  # its grad: is differentiated with SymPy


@dataclass
class Traced:
    """One recorded translation: its fingerprint, and what replay.job packs of it."""

    digest: str  # hex digest of the translation at the point
    ctx: TracingContext  # its bindings() are lambdify's arguments, in order
    total: Node  # the loss
    natural: dict  # entry target -> its translated expressions (an object array of nodes)


def fingerprint(problem, values: dict) -> tuple[str, TracingContext] | None:
    """(hex digest of the translation at the point, the traced context: its bindings() are
    lambdify's arguments, in order), or None when the translation cannot be recorded."""
    traced = trace(problem, values)
    return None if traced is None else (traced.digest, traced.ctx)


def trace(problem, values: dict) -> Traced | None:
    """The translation recorded, or None when it cannot be."""
    tracer = Tracer()
    ctx = TracingContext(problem.graph, tracer)
    try:
        with np.errstate(all="ignore"):
            exprs, natural = symbolic.translate_problem(ctx, problem, values)
            total = symbolic.loss(ctx, problem, exprs)
    except RecursionError:
        return None
    except Exception:  # Untraceable, or a translation that needs SymPy's answers
        return None
    graph = problem.graph
    parts: list = [("loss", tracer.key(total))]
    try:
        for t in problem.wrt:
            if is_float(graph[t].dtype):
                parts.append(("target", t, tracer.key(ctx.symbols[t])))
        for i in sorted(natural):
            parts.append(("natural", i, tracer.key(natural[i])))
    except Untraceable:
        return None
    # SymPy's bindings follow the order of ctx.symbols (Context.bindings)
    parts.append(("symbols", tuple((i, ctx.symbols[i].size) for i in ctx.symbols)))
    digest = hashlib.sha256()
    for i in tracer.closure(_node_ids(tuple(parts))):
        digest.update(repr((i, tracer.nodes[i])).encode())
        digest.update(b"\n")
    digest.update(repr(parts).encode())
    return Traced(digest.hexdigest(), ctx, total, natural)
