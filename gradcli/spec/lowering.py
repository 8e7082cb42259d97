"""Expression ASTs to graph nodes: name resolution, calls, literals and the dtype rules.

Dtype rules (documented in docs/spec-format.md):
- a literal (number or list of numbers) takes the dtype of the tensor it meets, like a
  Python scalar in TensorFlow; alone it is float64;
- booleans become 0.0/1.0 where a number is needed, ints become float64 where a float is
  needed (sin, mean, ...), and ints meeting floats become that float; each conversion is a
  visible `cast` node, and casts from int or bool carry no gradient;
- float32 meeting float64 is an error: gradcli never changes a float's precision silently.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gradcli.core.graph import (
    FLOAT_DTYPES,
    FORWARD,
    INT_DTYPES,
    Graph,
    is_float,
)
from gradcli.core.ops import REGISTRY, AttrKind, binary_operators, const, emit, public_ops
from gradcli.core.ops.registry import ForwardBuilder
from gradcli.runtime.errors import GradcliError, Pos, did_you_mean
from gradcli.spec import expression as ast
from gradcli.spec import lowering_fast
from gradcli.spec.attributes import (
    REQUIRED_EXAMPLE,
    Group,
    Lit,
    Seq,
    _attribute,
    _check_list_depth,
    _constant_int,
    _describe,
    _integral,
    _NoIndex,
)
from gradcli.spec.functions import FunctionCalls

CONSTANTS = {
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "nan": math.nan,
    "true": True,
    "false": False,
    "True": True,
    "False": False,
}
# ops whose axis is one integer (the reductions also take a list of axes)
RESERVED = {"dy", "out"}  # names a custom gradient expression sees besides the parameters
OPERATORS = {symbol: op.name for symbol, op in binary_operators().items()}  # + -> add


@dataclass(slots=True)
class Function:
    """A spec function: parameters, body, and optionally one gradient expression per parameter."""

    name: str
    params: list[str]
    body: object
    grads: list | None  # ASTs (None = no gradient to that parameter), or None: differentiate body
    pos: Pos


def promote(dtypes, pos: Pos | None) -> str:
    """The common dtype of tensors meeting in one op (see the module docstring)."""
    kinds = set(dtypes)
    if len(kinds) == 1:
        return next(iter(kinds))
    floats = sorted(kinds & set(FLOAT_DTYPES))
    ints = sorted(kinds & set(INT_DTYPES))
    if len(floats) > 1:
        raise GradcliError(
            "float32 and float64 tensors meet here; convert one with cast(x, 'float32') or "
            "cast(x, 'float64')",
            pos,
        )
    if floats:
        return floats[0]
    if ints:
        return "int64" if len(ints) > 1 else ints[0]
    return "bool"


def _children(node) -> list:
    kind = type(node)
    if kind is ast.Binary:
        return [node.left, node.right]
    if kind is ast.Name or kind is ast.Num or kind is ast.Str:
        return []
    if kind is ast.Unary:
        return [node.operand]
    if kind is ast.Call:
        return [*node.args, *(k.value for k in node.kwargs)] if node.kwargs else node.args
    if kind is ast.List:
        return node.items
    if kind is ast.Index:
        return [node.value, *node.items]
    if kind is ast.Slice:
        return [p for p in (node.start, node.stop, node.step) if p is not None]
    return []


_SIGNATURES: dict = {}


def _signature(op) -> tuple[list, list[str], dict, bool]:
    """An op's leading attributes, the names of its others, all by name, and whether a call
    with only its tensors needs nothing more than preparing them (computed once per op)."""
    sig = _SIGNATURES.get(op.name)
    if sig is None or sig[0] is not op:
        leading = [a for a in op.attrs if a.leading]
        plain = (
            not leading
            and op.arity is not None
            and op.unpack is None
            and not any(a.required or a.kind is AttrKind.TENSOR for a in op.attrs)
        )
        others = [a.name for a in op.attrs if not a.leading]
        sig = _SIGNATURES[op.name] = (op, (leading, others, {a.name: a for a in op.attrs}, plain))
    return sig[1]


class Builder(FunctionCalls):
    """Builds nodes for expressions into one graph.

    scope maps visible names to node ids; `later` maps names defined further down the spec
    to their line, for a clear forward-reference error.
    """

    def __init__(self, graph: Graph, functions: dict[str, Function], *, kind=FORWARD, origin=None):
        self.graph = graph
        self.functions = functions
        self.kind = kind
        self.origin = origin
        self.active: list[str] = []  # functions being inlined (recursion check)
        self.entry: str | None = None
        self.scope: dict[str, int] = {}
        self.later: dict[str, int] = {}
        self.where = ""  # " in function 'f'" while inlining

    # --- node emission ---------------------------------------------------------------------
    def emit(self, opname: str, inputs, attrs=None, pos=None) -> int:
        return emit(
            self.graph,
            opname,
            inputs,
            attrs,
            kind=self.kind,
            entry=self.entry,
            pos=pos,
            origin=self.origin,
        )

    def const(self, value, dtype: str, pos: Pos) -> int:
        return const(self.graph, value, dtype, entry=self.entry, pos=pos)

    def cast(self, i: int, dtype: str, pos: Pos) -> int:
        return i if self.graph[i].dtype == dtype else self.emit("cast", (i,), {"dtype": dtype}, pos)

    def tensor(self, value, dtype: str | None = None) -> int:
        """A node id for a built value: literals become constants (float64 unless told)."""
        if isinstance(value, int):
            return value
        if isinstance(value, Group):
            raise value.refuse()
        if isinstance(value, Seq):
            value = self.sequence(value)
            if isinstance(value, int):
                return value
        if isinstance(value, Lit):
            target = dtype or ("bool" if value.value.dtype == bool else "float64")
            if target in INT_DTYPES and not _integral(value.value):
                target = "float64"
            return self.const(value.value, target, value.pos)
        pos = getattr(value, "pos", None)
        raise GradcliError(f"expected a tensor, got {_describe(value)}", pos)

    def operand(self, value):
        """A built value as a node id or a literal; lists become tensors, anything else fails."""
        if isinstance(value, Group):
            raise value.refuse()
        if isinstance(value, Seq):
            value = self.sequence(value)
        if isinstance(value, (int, Lit)):
            return value
        raise GradcliError(
            f"expected a tensor, got {_describe(value)}", getattr(value, "pos", None)
        )

    def sequence(self, seq: Seq):
        """A list expression as a tensor: a literal array when constant, else stack(items)."""
        _check_list_depth(seq)  # bounds the recursion below by MAX_RANK
        items = [self.sequence(v) if isinstance(v, Seq) else v for v in seq.items]
        if not items:
            raise GradcliError("an empty list is not a tensor", seq.pos)
        if all(isinstance(v, Lit) for v in items):
            shapes = {v.value.shape for v in items}
            if len(shapes) != 1:
                raise GradcliError("ragged nested list: rows have different lengths", seq.pos)
            return Lit(np.stack([v.value for v in items]), seq.pos)
        ids = self.unify(items, seq.pos)
        return self.emit("stack", ids, {"axis": 0}, seq.pos)

    def unify(self, values: list, pos: Pos, number=False) -> list[int]:
        """Bring tensors and literals to one dtype (see promote); number=True makes bools floats."""
        nodes_ = self.graph.nodes
        if all(type(v) is int for v in values):  # the common case: tensors of one float dtype
            first = nodes_[values[0]].dtype
            if first in FLOAT_DTYPES and all(nodes_[v].dtype == first for v in values):
                return list(values)
        elif all(type(v) is int or type(v) is Lit for v in values):
            # tensors of one float dtype and literals (x * 0.5): the literals take that dtype
            ids = [v for v in values if type(v) is int]
            first = nodes_[ids[0]].dtype if ids else None
            if first in FLOAT_DTYPES and all(nodes_[v].dtype == first for v in ids):
                return [v if type(v) is int else self.const(v.value, first, v.pos) for v in values]
        values = [self.operand(v) for v in values]
        nodes = [v for v in values if isinstance(v, int)]
        if nodes:
            target = promote([self.graph[i].dtype for i in nodes], pos)
        else:
            target = "bool" if all(v.value.dtype == bool for v in values) else "float64"
        if target in INT_DTYPES and not all(
            _integral(v.value) for v in values if isinstance(v, Lit)
        ):
            target = "float64"
        if number and target == "bool":
            target = "float64"
        return [self.cast(self.tensor(v, target), target, pos) for v in values]

    # --- building ---------------------------------------------------------------------------
    def build(self, tree):
        """Build an expression; iterative post-order, so long chains do not recurse."""
        return lowering_fast.build(self, tree, _signature, OPERATORS, _children, Builder.emit)

    def combine(self, node, args):
        kind = type(node)  # the common kinds first, by exact type (a per-node hot path)
        if kind is ast.Name:
            return self.name(node)
        if kind is ast.Binary:
            return self.binary(node, *args)
        if kind is ast.Num:
            return Lit(np.asarray(float(node.value)), node.pos)
        if isinstance(node, ast.Str):
            return node
        if isinstance(node, ast.List):
            return Seq(args, node.pos)
        if isinstance(node, ast.Unary):
            return self.unary(node, args[0])
        if isinstance(node, ast.Call):
            return self.call(node, args)
        if isinstance(node, ast.Index):
            return self.index(node, args[0], args[1:])
        if isinstance(node, ast.Slice):
            return self.slice(node, args)
        if isinstance(node, ast.IndexMarker):
            return node.value
        raise AssertionError(f"unknown AST node {node!r}")

    def name(self, node: ast.Name):
        ident = node.id
        if ident in self.scope:
            return self.scope[ident]
        if ident in CONSTANTS:
            return Lit(np.asarray(CONSTANTS[ident]), node.pos)
        if ident == self.entry:
            raise GradcliError(f"'{ident}' refers to itself", node.pos)
        if ident in self.later:
            raise GradcliError(
                f"'{ident}' is defined later (line {self.later[ident]}); an entry can only use "
                "inputs and earlier entries",
                node.pos,
            )
        if ident in self.functions or ident in public_ops():
            raise GradcliError(f"'{ident}' is a function; call it as {ident}(...)", node.pos)
        hint = did_you_mean(ident, [*self.scope, *CONSTANTS])
        raise GradcliError(f"unknown name '{ident}'{self.where}{hint}", node.pos)

    def unary(self, node: ast.Unary, value):
        value = self.operand(value)
        if isinstance(value, Lit):
            v = value.value.astype(float) if value.value.dtype == bool else value.value
            return Lit(-v if node.op == "-" else v, node.pos)
        if node.op == "+":
            return value
        (x,) = self.unify([value], node.pos, number=True)
        return self.emit("neg", (x,), None, node.pos)

    def binary(self, node: ast.Binary, left, right):
        return self.op_call(OPERATORS[node.op], [left, right], {}, node.pos)

    def call(self, node: ast.Call, args):
        positional = args[: len(node.args)]
        keywords = {k.name: (v, k.pos) for k, v in zip(node.kwargs, args[len(node.args) :])}
        if node.func in self.functions:
            if keywords:
                raise GradcliError(f"{node.func}() takes no keyword arguments", node.pos)
            return self.call_function(self.functions[node.func], positional, node.pos)
        op = public_ops().get(node.func)
        if op is None:
            if node.func in self.scope or node.func in CONSTANTS:
                raise GradcliError(f"'{node.func}' is not a function", node.pos)
            hint = did_you_mean(node.func, [*public_ops(), *self.functions])
            raise GradcliError(f"unknown function '{node.func}'{hint}", node.pos)
        return self.op_call(node.func, positional, keywords, node.pos)

    def op_call(self, opname: str, args: list, keywords: dict, pos: Pos):
        """Map a call's arguments to the op's tensor inputs and attributes, then emit it."""
        op = REGISTRY[opname]
        leading, later, schema, plain = _signature(op)
        if plain and not keywords and len(args) == op.arity:  # sin(x), x * y: tensors only
            return self.emit(opname, self.prepare(op, args, pos), {}, pos)
        attrs = {}
        # tensors passed like attributes (random_normal's mean=): inputs after the others
        keyed = [a for a in op.attrs if a.kind is AttrKind.TENSOR]
        arity = None if op.arity is None else op.arity - len(keyed)
        if leading:  # einsum('ij,jk->ik', a, b): attributes before the tensors
            text = leading[0].kind is AttrKind.STR
            if len(args) < len(leading) or (text and not isinstance(args[0], ast.Str)):
                example = REQUIRED_EXAMPLE[leading[0].kind].format(op=opname, name=leading[0].name)
                raise GradcliError(
                    f"{opname} takes its {leading[0].name} first, e.g. {example}", pos
                )
            for attr, value in zip(leading, args):
                attrs[attr.name] = (value, pos)
            args = args[len(leading) :]
        if op.arity is None and leading:  # the remaining positional arguments are tensors
            tensors, extra = args, []
            if not tensors:
                raise GradcliError(f"{opname} needs at least one tensor", pos)
        elif op.arity is None:  # concat, stack: one list of tensors
            if args and isinstance(args[0], Group):  # concat(split(x, 2), 0), as TensorFlow
                args = [Seq(args[0].ids, args[0].pos), *args[1:]]
            if len(args) < 1 or not isinstance(args[0], Seq):
                raise GradcliError(f"{opname} takes a list of tensors, e.g. {opname}([a, b])", pos)
            tensors, extra = args[0].items, args[1:]
            if not tensors:
                raise GradcliError(f"{opname} needs at least one tensor in its list", pos)
        else:
            tensors, extra = args[:arity], args[arity:]
            if len(tensors) < arity:
                raise GradcliError(
                    f"{opname} takes {arity} tensor argument{'s' * (arity > 1)}, "
                    f"got {len(tensors)}",
                    pos,
                )
        if len(extra) > len(later):
            raise GradcliError(
                f"{opname} takes at most {(1 if arity is None else arity) + len(op.kwargs)} "
                f"arguments, got {len(args) + len(leading)}",
                pos,
            )
        for name, value in zip(later, extra):
            attrs[name] = (value, pos)
        for name, (value, kpos) in keywords.items():
            if name not in op.kwargs:
                hint = did_you_mean(name, op.kwargs)
                raise GradcliError(f"{opname}() has no argument '{name}'{hint}", kpos)
            if name in attrs:
                raise GradcliError(f"{opname}() got '{name}' twice", kpos)
            attrs[name] = (value, kpos)
        given = [attrs.pop(a.name, (Lit(np.asarray(a.default), pos), pos))[0] for a in keyed]
        if attrs:
            attrs = {name: _attribute(opname, schema[name], v, p) for name, (v, p) in attrs.items()}
        for attr in op.attrs:
            if attr.required and attr.name not in attrs:
                example = (attr.example or REQUIRED_EXAMPLE[attr.kind]).format(
                    op=opname, name=attr.name
                )
                article = "an" if attr.name[0] in "aeiou" else "a"
                raise GradcliError(f"{opname} needs {article} {attr.name}, e.g. {example}", pos)
        inputs = self.prepare(op, tensors, pos)
        if keyed:  # their literals take the op's dtype (TensorFlow converts them to it)
            dtype = attrs.get("dtype", op.default("dtype"))
            inputs += [self.tensor(v, dtype) for v in given]
        if op.unpack is not None:
            out = ForwardBuilder(self.graph, pos, self.entry, self.kind)
            out.origin = self.origin
            outs = out.unpack(opname, inputs, attrs)
            return outs if isinstance(outs, int) else Group(outs, opname, pos)  # svd: one
        return self.emit(opname, inputs, attrs, pos)

    def prepare(self, op, tensors: list, pos: Pos) -> list[int]:
        """Inputs converted to the dtypes the op accepts (see the module docstring)."""
        if op.index_inputs:
            return self.prepare_indexed(op, tensors, pos)
        if not tensors:  # an op of attributes only (eye)
            return []
        kind = op.accepts
        if kind == "select":  # where/cond: a boolean condition, then two values of one dtype
            cond = self.tensor(tensors[0], "bool")
            return [cond, *self.unify(tensors[1:], pos)]
        if kind == "bool":
            ids = [self.tensor(t, "bool") for t in tensors]
            for i in ids:
                if self.graph[i].dtype != "bool":
                    raise GradcliError(
                        f"{op.name} needs booleans (comparisons), got {self.graph[i].dtype}", pos
                    )
            return ids
        if kind == "any":
            return self.unify(tensors, pos) if len(tensors) > 1 else [self.tensor(tensors[0])]
        ids = self.unify(tensors, pos, number=kind != "compare")
        if kind == "float":
            ids = [
                self.cast(i, "float64", pos) if not is_float(self.graph[i].dtype) else i
                for i in ids
            ]
        return ids

    def prepare_indexed(self, op, tensors: list, pos: Pos) -> list[int]:
        """An op with integer index inputs (gather): those become int32 literals or stay
        int32/int64 tensors; the other inputs are prepared as `accepts` says."""
        ids: dict[int, int] = {}
        for k in op.index_inputs:
            value = tensors[k]
            where = getattr(value, "pos", None) or pos
            if isinstance(value, Seq):
                value = self.sequence(value)
            if isinstance(value, Lit):
                if value.value.dtype == bool or not _integral(value.value):
                    raise GradcliError(f"{op.name}: indices must be integers", where)
                if np.any(np.abs(value.value) >= 2**31):
                    raise GradcliError(f"{op.name}: an index is too large for int32", where)
                ids[k] = self.const(value.value.astype(np.int64), "int32", where)
                continue
            i = self.tensor(value)
            dtype = self.graph[i].dtype
            if dtype not in INT_DTYPES:
                raise GradcliError(
                    f"{op.name}: indices must be int32 or int64, got {dtype} "
                    f"(cast(x, 'int32') converts)",
                    where,
                )
            ids[k] = i
        rest = [t for k, t in enumerate(tensors) if k not in ids]
        if rest:
            rest = self.prepare(_NoIndex(op), rest, pos)
        it = iter(rest)
        return [ids[k] if k in ids else next(it) for k in range(len(tensors))]

    def index(self, node: ast.Index, value, items):
        if isinstance(value, Group):
            return self.pick(node, value, items)
        index = []
        for item, raw in zip(items, node.items):
            if isinstance(item, slice) or item is None or item is Ellipsis:
                index.append(item)
            else:
                index.append(_constant_int(item, "an index", getattr(raw, "pos", node.pos)))
        return self.emit("getitem", (self.tensor(value),), {"index": tuple(index)}, node.pos)

    def pick(self, node: ast.Index, group: Group, items):
        """split(x, 2)[1]: one output of a multi-output op."""
        n = len(group.ids)
        if len(items) != 1 or isinstance(items[0], slice):
            raise GradcliError(f"index the {n} outputs of {group.op} with one integer", node.pos)
        k = _constant_int(items[0], "an index", getattr(node.items[0], "pos", node.pos))
        if not -n <= k < n:
            raise GradcliError(
                f"index {k} is out of range for the {n} outputs of {group.op}", node.pos
            )
        return group.ids[k]

    def slice(self, node: ast.Slice, args):
        parts = iter(args)
        values = []
        for p in (node.start, node.stop, node.step):
            values.append(None if p is None else _constant_int(next(parts), "a slice bound", p.pos))
        if values[2] == 0:
            raise GradcliError("slice step cannot be zero", node.pos)
        return slice(*values)
