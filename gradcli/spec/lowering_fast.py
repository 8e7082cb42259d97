"""The lowering's per-node fast path: operators and calls on float tensors of one dtype.

Most nodes of a long spec are `x * 0.9`, `sin(y)` or `maximum(a, b)`: an op whose call
takes tensors only, on tensors of one float dtype and number literals. build() emits them
directly, with exactly the inputs, constants and node order the generic path
(Builder.combine -> op_call -> prepare -> unify) gives them; every other node, and every
error, goes through that generic path.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import FLOAT_DTYPES
from gradcli.core.ops import REGISTRY, emit, public_ops
from gradcli.core.ops.registry import _pack_float
from gradcli.spec import expression as ast
from gradcli.spec.attributes import Lit

# accepts kinds whose prepare() leaves float tensors of one dtype as they are
_PASSING = ("number", "float", "compare", "any")
_FAST: dict[str, tuple] = {}  # op name -> (the op, whether its calls take the fast path)


def _fast_op(opname: str, signature) -> tuple:
    """(op, whether a call of it with only its tensors needs nothing but emitting), cached."""
    op = REGISTRY.get(opname)
    fast = op is not None and signature(op)[3] and not op.index_inputs
    cached = _FAST[opname] = (op, fast and op.accepts in _PASSING)
    return cached


def _number(value) -> Lit:
    """A number literal as the generic path builds it (Builder.combine)."""
    return Lit(np.asarray(float(value.value)), value.pos)


def _const(builder, value: float, dtype: str, pos) -> int:
    """builder.const(value, dtype, pos): a float64 constant seen before is looked up in
    const()'s own cache as const() does (its key), without the two calls."""
    if dtype == "float64":
        i = builder.graph.const_cache.get(("float64", (), _pack_float(value)))
        if i is not None:
            return i
    return builder.const(value, dtype, pos)


def _emit_fast(builder, opname: str, args: list, pos, signature, builder_emit):
    """The node of opname(args) when every arg is a tensor of one float dtype or a number
    (at least one a tensor), else None."""
    op = REGISTRY.get(opname)
    cached = _FAST.get(opname)
    if cached is None or cached[0] is not op:
        cached = _fast_op(opname, signature)
    if not cached[1] or len(args) != op.arity:
        return None
    nodes = builder.graph.nodes
    if len(args) == 2:  # the loops below unrolled for two arguments (a per-node hot path)
        a, b = args
        if type(a) is int:
            dtype = nodes[a].dtype
            if type(b) is int:
                if nodes[b].dtype != dtype:
                    return None
            elif type(b) is not ast.Num:
                return None
        elif type(a) is ast.Num and type(b) is int:
            dtype = nodes[b].dtype
        else:
            return None
        if dtype not in FLOAT_DTYPES:
            return None
        if type(a) is not int:
            a = _const(builder, float(a.value), dtype, a.pos)
        if type(b) is not int:
            b = _const(builder, float(b.value), dtype, b.pos)
        ins = (a, b)  # emit keeps a tuple as it is
        if type(builder).emit is not builder_emit:
            return builder.emit(opname, ins, None, pos)
        return emit(
            builder.graph,
            opname,
            ins,
            None,
            kind=builder.kind,
            entry=builder.entry,
            pos=pos,
            origin=builder.origin,
        )
    dtype = None
    for a in args:
        if type(a) is int:
            d = nodes[a].dtype
            if dtype is None:
                dtype = d
            elif d != dtype:
                return None
        elif type(a) is not ast.Num:
            return None
    if dtype not in FLOAT_DTYPES:
        return None
    ins = []
    for a in args:
        if type(a) is int:
            ins.append(a)
            continue
        # unify's literal path: const(the literal as float64, dtype), the same conversion
        # from the Python float (const() finds a float64 constant seen before in its cache)
        ins.append(_const(builder, float(a.value), dtype, a.pos))
    if type(builder).emit is not builder_emit:
        return builder.emit(opname, ins, None, pos)
    # Builder.emit without its own call
    return emit(
        builder.graph,
        opname,
        ins,
        None,
        kind=builder.kind,
        entry=builder.entry,
        pos=pos,
        origin=builder.origin,
    )


def build(builder, tree, signature, operators: dict, children, base):
    """Build an expression; iterative post-order, so long chains do not recurse (base: the
    Builder class's own emit, which the fast path calls through to)."""
    scope = builder.scope
    functions = builder.functions
    public = public_ops()
    results: list = []  # built values; an ast.Num stays one until an op takes it
    stack: list = [(tree, -1)]  # (AST node, -1 before its children, else their count)
    Name, Num, Binary, Call = ast.Name, ast.Num, ast.Binary, ast.Call
    while stack:
        node, n = stack.pop()
        kind = type(node)
        if kind is Name:
            ident = node.id
            results.append(scope[ident] if ident in scope else builder.combine(node, ()))
            continue
        if kind is Num:
            results.append(node)
            continue
        if n < 0:
            kids = [node.left, node.right] if kind is Binary else children(node)
            for kid in kids:
                if type(kid) is not Name and type(kid) is not Num:
                    stack.append((node, len(kids)))
                    stack.extend((k, -1) for k in reversed(kids))
                    break
            else:  # f(a), a * 2: only names and numbers below, read here in order
                args = []
                for kid in kids:
                    if type(kid) is Num:
                        args.append(kid)
                    elif kid.id in scope:
                        args.append(scope[kid.id])
                    else:
                        args.append(builder.combine(kid, ()))
                n = -2
            if n == -1:
                continue
        elif n:
            args = results[-n:]
            del results[-n:]
        else:
            args = []
        value = None
        if kind is Binary:
            value = _emit_fast(builder, operators[node.op], args, node.pos, signature, base)
        elif kind is Call:
            func = node.func
            if not node.kwargs and func not in functions and func in public:
                value = _emit_fast(builder, func, args, node.pos, signature, base)
        elif kind is ast.Unary and node.op == "-" and type(args[0]) is int:
            value = _emit_fast(builder, "neg", args, node.pos, signature, base)
        if value is None:
            args = [_number(a) if type(a) is Num else a for a in args]
            value = builder.combine(node, args)
        results.append(value)
    value = results[0]
    return _number(value) if type(value) is Num else value
