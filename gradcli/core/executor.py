"""Evaluate graph nodes with numpy: only what targets need, each value freed after its last use.

0-d float64 values travel as Python floats through each op's `scalar` fast path (the
`math` module is ~10x faster than numpy on scalars); a domain or overflow error there
falls back to the numpy forward, which returns inf or nan as TensorFlow does.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import COND_OP, FLOAT_DTYPES, Graph, Node
from gradcli.core.memory import Held
from gradcli.core.ops import REGISTRY, resolve_cond
from gradcli.runtime.errors import GradcliError

# ops whose numpy forward is an elementwise ufunc, or takes out= like one: results are
# fresh, buffers reusable
ELEMENTWISE_UFUNCS = frozenset(
    name for name, op in REGISTRY.items() if op.elementwise and isinstance(op.forward, np.ufunc)
) | {"tanh_grad"}

# dead buffers kept for the next elementwise result of their shape and dtype: a fresh
# 80 MB array costs ~20,000 page faults on first touch
POOL_SIZE = 2


def exec_inputs(node: Node) -> tuple[int, ...]:
    """The inputs a node's forward reads: a cond reads its predicate, then only its taken branch."""
    if node.op == COND_OP:
        taken = node.attrs.get("taken")
        return (node.inputs[0],) if taken is None else (node.inputs[taken],)
    return node.inputs


def _cond_forward(shape):
    def forward(v):
        return v if np.shape(v) == shape else np.broadcast_to(v, shape)

    return forward


_SCALAR_IN = ("float64", "bool")
# comparisons: a boolean result (numpy's np.True_ or np.False_) from 0-d values
_SCALAR_COMPARISONS = frozenset(
    name
    for name, op in REGISTRY.items()
    if op.scalar is not None and op.operator is not None and op.operator.comparison
)


def _step(node: Node, args, nodes: list[Node], scalar: bool = True):
    """(fn, fallback) for one node: the scalar fast path when every value is a 0-d float64.

    The fallback is None when fn is already the numpy forward; the executor binds the numpy
    forward lazily (only a failed scalar step needs it). run() inlines it.
    """
    op = REGISTRY[node.op]
    if node.op == COND_OP:
        return _cond_forward(node.shape), None
    if scalar and op.scalar is not None and node.shape == () and node.dtype == "float64":
        for j in args:
            n = nodes[j]
            if n.shape != () or n.dtype not in _SCALAR_IN:
                break
        else:
            return op.scalar, op
    return op.fn(node.attrs), None


def run(
    graph: Graph, targets, known: dict | None = None, keep: bool = False, scalar: bool = True
) -> dict:
    """Values of the targets (and of every node computed, when keep=True).

    scalar=False turns the Python-float fast path off: batch evaluation feeds 0-d nodes
    whole columns of points (a leading batch axis).

    Kept as one function on purpose: it is the per-node hot loop of every command (a
    100,000-node chain runs it 100,000 times), and locals beat attribute lookups and calls.
    """
    nodes = graph.nodes
    values: dict = dict(known) if known else {}
    if not targets:
        return values
    top = max(targets)
    needed = bytearray(top + 1)
    for t in targets:
        needed[t] = 1
    # one backward pass: what the targets need, in reverse order, any unresolved cond, and
    # where each value is used for the last time (the first use this pass meets; targets
    # and kept values are never freed)
    order = []
    unresolved = False
    freed = bytearray(top + 1) if not keep else None
    frees: dict[int, list[int]] = {}
    if freed is not None:
        for t in targets:
            freed[t] = 1
    for i in range(top, -1, -1):
        if needed[i] and (not values or i not in values):
            order.append(i)
            node = nodes[i]
            if node.op != COND_OP:
                ins = node.inputs
            else:
                unresolved = unresolved or node.attrs.get("taken") is None
                ins = exec_inputs(node)
            if freed is None:
                for j in ins:
                    needed[j] = 1
                continue
            dead = None
            for j in ins:
                needed[j] = 1
                if not freed[j]:
                    freed[j] = 1
                    if dead is None:
                        dead = frees[i] = [j]
                    else:
                        dead.append(j)
    order.reverse()
    if unresolved:
        # a cond built after the last resolve_conds (e.g. by a custom gradient's grad:):
        # pick its branch now, as eager tf.cond would, then evaluate
        resolve_conds(graph, targets, values)
        return run(graph, targets, values, keep, scalar)

    vals: list = [None] * (top + 1)
    # 1 for arrays this run allocated with an elementwise ufunc that nothing else aliases:
    # once dead (past their last use) their buffer can take an elementwise op's result
    owned = bytearray(top + 1)
    # scal[j]: node j is 0-d float64 or bool, an operand of the scalar fast path (_step)
    scal = bytearray(top + 1)
    for i, v in values.items():
        if i <= top:
            vals[i] = v
            node = nodes[i]
            scal[i] = node.shape == () and node.dtype in _SCALAR_IN
    pool: dict = {}  # (shape, dtype) -> dead owned buffers, POOL_SIZE at most in all
    held = Held(values)  # the bytes of all arrays held at once, against --max-bytes
    with np.errstate(all="ignore"):
        for i in order:
            node = nodes[i]
            opname = node.op
            shape = node.shape
            if opname == "input" or opname == "const":
                value = vals[i] = node.attrs["value"]
                if type(value) is np.ndarray:
                    held.add(value)
                scal[i] = shape == () and node.dtype in _SCALAR_IN
                continue
            dtype = node.dtype
            op = REGISTRY[opname]
            sfn = op.scalar
            if shape:
                held.check(node)
            elif shape == ():
                scal[i] = dtype in _SCALAR_IN
            if shape == () and opname != COND_OP:
                # _step's scalar fast path on one to three Python floats (the hot path of long
                # chains): the same choice as the general step below, taken without its tests
                args = node.inputs
                if (
                    sfn is not None
                    and scalar
                    and (dtype == "float64" or opname in _SCALAR_COMPARISONS)
                    and len(args) <= 3
                ):
                    if len(args) == 2:
                        a, b = args
                        if scal[a] and scal[b]:
                            try:
                                result = sfn(vals[a], vals[b])
                            except (ArithmeticError, ValueError):
                                vals[i] = _numpy_redo(op, node, args, vals, nodes)
                            except (TypeError, IndexError, MemoryError) as exc:
                                raise _eval_error(node, exc, nodes) from None
                            else:
                                vals[i] = result
                                if type(result) is not float:
                                    _after_step(result, i, args, vals, owned, held)
                            dead = frees.get(i)
                            if dead is not None:
                                for j in dead:  # _free inlined for dead Python values
                                    if owned[j] or type(vals[j]) is np.ndarray:
                                        _free((j,), vals, owned, held, pool)
                                    else:
                                        vals[j] = None
                            continue
                    elif len(args) == 1:
                        a = args[0]
                        if scal[a]:
                            try:
                                result = sfn(vals[a])
                            except (ArithmeticError, ValueError):
                                vals[i] = _numpy_redo(op, node, args, vals, nodes)
                            except (TypeError, IndexError, MemoryError) as exc:
                                raise _eval_error(node, exc, nodes) from None
                            else:
                                vals[i] = result
                                if type(result) is not float:
                                    _after_step(result, i, args, vals, owned, held)
                            dead = frees.get(i)
                            if dead is not None:
                                for j in dead:  # _free inlined for dead Python values
                                    if owned[j] or type(vals[j]) is np.ndarray:
                                        _free((j,), vals, owned, held, pool)
                                    else:
                                        vals[j] = None
                            continue
                    elif len(args) == 3:  # where(c, x, y): a gradient's selection
                        a, b, c = args
                        if scal[a] and scal[b] and scal[c]:
                            try:
                                result = sfn(vals[a], vals[b], vals[c])
                            except (ArithmeticError, ValueError):
                                vals[i] = _numpy_redo(op, node, args, vals, nodes)
                            except (TypeError, IndexError, MemoryError) as exc:
                                raise _eval_error(node, exc, nodes) from None
                            else:
                                vals[i] = result
                                if type(result) is not float:
                                    _after_step(result, i, args, vals, owned, held)
                            dead = frees.get(i)
                            if dead is not None:
                                for j in dead:  # _free inlined for dead Python values
                                    if owned[j] or type(vals[j]) is np.ndarray:
                                        _free((j,), vals, owned, held, pool)
                                    else:
                                        vals[j] = None
                            continue
            if opname == COND_OP:
                if node.attrs.get("taken") is None:
                    raise AssertionError(f"cond {i} evaluated before its predicate was resolved")
                args = exec_inputs(node)
            else:
                args = node.inputs
            # _step inlined (the scalar fast path when every value is a 0-d float64)
            nargs = len(args)
            if opname == COND_OP:
                fn, fallback = _cond_forward(shape), None
            elif (
                scalar
                and sfn is not None
                and shape == ()
                and (dtype == "float64" or opname in _SCALAR_COMPARISONS)
            ):
                for j in args:
                    if not scal[j]:
                        fn, fallback = op.fn(node.attrs), None
                        break
                else:
                    fn, fallback = sfn, op
            else:
                fn, fallback = op.fn(node.attrs), None
            try:
                if fallback is None and opname in ELEMENTWISE_UFUNCS and dtype in FLOAT_DTYPES:
                    vals[i] = _ufunc_step(fn, node, args, vals, owned, frees, pool)
                elif nargs == 1:
                    vals[i] = fn(vals[args[0]])
                elif nargs == 2:
                    vals[i] = fn(vals[args[0]], vals[args[1]])
                elif nargs == 3:  # where
                    vals[i] = fn(vals[args[0]], vals[args[1]], vals[args[2]])
                else:
                    vals[i] = fn(*[vals[j] for j in args])
                _after_step(vals[i], i, args, vals, owned, held)
            except (ArithmeticError, ValueError):
                # Python-float arithmetic raises where numpy returns inf or nan: redo in numpy
                numpy_fn = fallback.fn(node.attrs) if fallback is not None else fn
                try:
                    vals[i] = numpy_fn(*[_as_numpy(vals[j]) for j in args])
                except (ArithmeticError, ValueError, TypeError) as exc:
                    raise _eval_error(node, exc, nodes) from None
            except (TypeError, IndexError, MemoryError) as exc:
                raise _eval_error(node, exc, nodes) from None
            dead = frees.get(i)
            if dead is not None:
                _free(dead, vals, owned, held, pool)
    out = {t: vals[t] for t in targets}
    if keep:
        out.update((i, vals[i]) for i in range(top + 1) if vals[i] is not None)
    return out


def _numpy_redo(op, node: Node, args, vals, nodes: list[Node]):
    """A scalar step that raised (Python floats raise where numpy gives inf or nan), in numpy."""
    try:
        return op.fn(node.attrs)(*[_as_numpy(vals[j]) for j in args])
    except (ArithmeticError, ValueError, TypeError) as exc:
        raise _eval_error(node, exc, nodes) from None


def _after_step(result, i: int, args, vals, owned: bytearray, held: Held) -> None:
    """Account for a step's result: its bytes held, and the operands it may alias."""
    if type(result) is np.ndarray:
        held.add(result)
        if not owned[i]:
            _disown_aliased(result, args, vals, owned)
    elif type(result) is not float and not isinstance(result, np.generic):
        _disown_aliased(None, args, vals, owned)  # a container may hold an operand


def _free(dead: list[int], vals, owned: bytearray, held: Held, pool: dict) -> None:
    """Drop the values past their last use; keep a dead owned buffer for reuse (the pool)."""
    for j in dead:
        if type(vals[j]) is np.ndarray:
            held.drop(vals[j])
        if owned[j]:
            owned[j] = 0
            if sum(map(len, pool.values())) < POOL_SIZE:
                buf = vals[j]
                pool.setdefault((buf.shape, buf.dtype), []).append(buf)
        vals[j] = None


def _ufunc_step(fn, node: Node, args, vals, owned: bytearray, frees: dict, pool: dict):
    """An elementwise ufunc, written into the buffer of an operand it uses for the last time,
    else into a pooled dead buffer of its shape and dtype, else into a fresh array.

    Like an in-place op on a dead tensor: the 10^7-element loss then peaks at five live
    arrays instead of six and allocates far less (frees, node id -> the values dying there,
    is empty when values are kept).
    """
    i = node.id
    ins = [vals[j] for j in args]
    dying = frees.get(i, ())
    for j in args:
        if owned[j] and j in dying:
            buf = vals[j]
            if buf.shape == node.shape and buf.dtype == node.dtype:
                try:
                    out = fn(*ins, out=buf)
                except TypeError:  # a casting rule refuses this buffer: allocate instead
                    break
                owned[j] = 0
                owned[i] = 1
                return out
    bufs = pool.get((node.shape, np.dtype(node.dtype)))
    if bufs:
        buf = bufs.pop()
        try:
            out = fn(*ins, out=buf)
        except TypeError:
            pass  # a casting rule refuses the buffer: drop it, allocate instead
        else:
            owned[i] = 1
            return out
    out = fn(*ins)
    if type(out) is np.ndarray:
        owned[i] = 1
    return out


def _disown_aliased(result, args, vals, owned: bytearray) -> None:
    """A result that is an operand or a view shares its memory: that operand's buffer is no
    longer free to overwrite when it dies."""
    view = result is None or result.base is not None
    for j in args:
        if owned[j] and (view or result is vals[j]):
            owned[j] = 0


def _as_numpy(value):
    return np.float64(value) if type(value) is float else value


def _eval_error(node: Node, exc: Exception, nodes: list[Node]) -> GradcliError:
    if isinstance(exc, MemoryError):
        return GradcliError(f"out of memory evaluating {node.op}", node.pos)
    what, pos = node.op, node.pos
    origin = node
    while pos is None and origin.origin is not None and origin.origin != origin.id:
        origin = nodes[origin.origin]  # a gradient node: the forward op whose rule built it
        pos = origin.pos
    if origin is not node:
        what = f"{node.op} in the gradient of {origin.op}"
    return GradcliError(f"cannot evaluate {what}: {exc}", pos)


def resolve_conds(graph: Graph, outputs, values: dict) -> None:
    """Evaluate the predicates of the conds the outputs need and record the taken branches.

    Conds inside other conds' predicates or branches are resolved as they become needed;
    `values` keeps what was computed, for reuse by the main evaluation.
    """
    conds = [n for n in graph.nodes if n.op == COND_OP and n.attrs.get("taken") is None]
    nodes = graph.nodes
    while conds:
        needed = graph.ancestors(outputs, exec_inputs)
        pending = [c for c in conds if c.id < len(needed) and needed[c.id]]
        if not pending:
            return
        # a predicate can be evaluated once nothing it depends on is an unresolved cond
        tainted = bytearray(len(needed))
        for i in range(len(needed)):
            node = nodes[i]
            if (node.op == COND_OP and node.attrs.get("taken") is None) or any(
                tainted[j] for j in exec_inputs(node)
            ):
                tainted[i] = 1
        ready = [c for c in pending if not tainted[c.inputs[0]]]
        preds = [c.inputs[0] for c in ready]
        values.update(run(graph, preds, known=values, keep=True))
        for c in ready:
            resolve_cond(graph, c, values[c.inputs[0]])
        conds = [c for c in conds if c.attrs.get("taken") is None]
