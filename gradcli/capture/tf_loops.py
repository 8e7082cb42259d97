"""The insides of TensorFlow's function-like ops, for the run mode: which traced graph a
recorded op belongs to, and for a `While` (tf.while_loop, so Keras's RNN layers, tf.scan,
tf.map_fn, AutoGraph's `for i in tf.range(n)`), a tf.function called eagerly
(`__inference_f_N`, or `__forward_f_N` under a tape) and a tf.function called inside
another (a `PartitionedCall`, which TensorFlow builds without running the op callbacks, so
the capture records it here), the links between the op's inputs and outputs and its body
graph's inputs and outputs (a loop also carries each body output to the next iteration's
input). capture/bodies.py reads these links; values inside iterations are not read.
"""

from __future__ import annotations

import threading
import weakref

FUNCTION_PREFIXES = ("__inference", "__forward_")
LOOPS = frozenset(["While", "StatelessWhile"])
BODY_ATTR = {"While": "body", "StatelessWhile": "body"}
GRAPH_CALLS = frozenset(["PartitionedCall", "StatefulPartitionedCall"])


class Graphs:
    """A small id per traced graph (held by weak reference, so a freed graph's id() reused
    by a new one gets a new id), and the tf.functions being called, per thread."""

    def __init__(self):
        self.ids: dict[int, tuple] = {}
        self.seen: dict[int, set] = {}  # graph id -> the names of the ops recorded in it
        self.unseen: dict[tuple, list] = {}  # (graph id, ops seen) -> op types not seen
        self.local = threading.local()

    def saw(self, graph, name) -> int:
        """Op `name` of `graph` was recorded: the graph's id."""
        gid = self.id_of(graph)
        self.seen.setdefault(gid, set()).add(name)
        return gid

    def id_of(self, graph) -> int:
        """The graph's small id, made on first sight."""
        known = self.ids.get(id(graph))
        if known is not None and known[0]() is graph:
            return known[1]
        gid = len(self.ids) + 1
        try:
            ref = weakref.ref(graph)
        except TypeError:
            ref = lambda g=graph: g  # noqa: E731
        self.ids[id(graph)] = (ref, gid)
        return gid

    def calling(self) -> list:
        """The AtomicFunctions being called in this thread, innermost last."""
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        return stack


def _name(op_type) -> str:
    return op_type.decode("utf-8", "replace") if isinstance(op_type, bytes) else str(op_type)


def body_graph(rec, op_type: str, attrs, graph):
    """The FuncGraph the op runs (its loop body, the function it calls), or None."""
    if graph is None or op_type in GRAPH_CALLS:
        stack = rec.graphs.calling()
        atomic = stack[-1] if stack else None
        if atomic is None:
            return None
        if graph is None and _name(atomic.name) != op_type:
            return None
        return getattr(atomic, "_cached_graph", None)  # never a graph made from its definition
    key = BODY_ATTR.get(op_type)
    if key is None or not attrs:
        return None
    found = dict(zip(attrs[::2], attrs[1::2]))
    try:
        return graph._get_function(found[key].func.name).graph
    except (AttributeError, KeyError, ValueError, TypeError):
        return None


def link(rec, op_type: str, attrs, graph, inputs, outputs) -> dict | None:
    """{"graph", "inputs": [(outer, inner)], "outputs": [(inner, outer)], "loop"}: value
    ids linking a function-like op to its body graph, or None where it has none."""
    if not (op_type in LOOPS or op_type in GRAPH_CALLS or op_type.startswith(FUNCTION_PREFIXES)):
        return None
    body = body_graph(rec, op_type, attrs, graph)
    if body is None:
        return None
    try:
        inner_in, inner_out = list(body.inputs), list(body.outputs)
    except AttributeError:
        return None
    if len(inner_in) != len(inputs) or len(inner_out) != len(outputs):
        return None  # not the shape this reading knows: left unread
    ins = [(rec.value_of(o), rec.value_of(i)) for o, i in zip(inputs, inner_in)]
    outs = [(rec.value_of(i), rec.value_of(o)) for i, o in zip(inner_out, outputs)]
    gid = rec.graphs.id_of(body)
    found = {
        "graph": gid,
        "inputs": ins,
        "outputs": outs,
        "loop": op_type in LOOPS,
    }
    seen = rec.graphs.seen.get(gid, set())
    key = (gid, len(seen))  # read once per graph (a step's function is called every step)
    unseen = rec.graphs.unseen.get(key)
    if unseen is None:
        unseen = rec.graphs.unseen[key] = _unseen(body, seen)
    if unseen:
        found["unseen"] = unseen
    return found


UNRECORDED = frozenset(["Placeholder", "Const", "NoOp", "VarIsInitializedOp"])  # by design


def _unseen(body, seen: set) -> list[str]:
    """The op types of the body's ops the capture did not record (TensorFlow built them
    without running the op callbacks, or the capture's own gradient ran them) that lie on a
    data path from the body's inputs to its outputs: a path through one is not known."""
    try:
        found = body.get_operations()
        missing = [op for op in found if op.type not in UNRECORDED and op.name not in seen]
        if not missing:
            return []
        after = _reached(
            [t.op for t in body.inputs], lambda op: [c for t in op.outputs for c in t.consumers()]
        )
        before = _reached([t.op for t in body.outputs], lambda op: [t.op for t in op.inputs])
    except Exception:
        return ["?"]
    names = {op.name for op in after} & {op.name for op in before}
    return sorted({op.type for op in missing if op.name in names})


def _reached(starts, step) -> list:
    """The ops reached from `starts` by `step` (an explicit stack)."""
    seen = {op.name: op for op in starts}
    stack = list(starts)
    while stack:
        for nxt in step(stack.pop()):
            if nxt.name not in seen:
                seen[nxt.name] = nxt
                stack.append(nxt)
    return list(seen.values())


def install(stack, rec) -> None:
    """AtomicFunction.call_flat remembers the function being called (an eager call's op
    callback then finds its graph), and records a call traced into a graph, which no op
    callback sees."""
    from tensorflow.python.eager.polymorphic_function import atomic_function

    cls = atomic_function.AtomicFunction
    original = cls.__dict__.get("call_flat")
    if original is None:
        return

    def call_flat(atomic, *args):
        calling = rec.graphs.calling()
        calling.append(atomic)
        try:
            out = original(atomic, *args)
            if out and not rec.busy and rec.failure is None and not _eager(out):
                _traced_call(rec, args, out)
            return out
        finally:
            calling.pop()

    cls.call_flat = call_flat
    stack.callback(setattr, cls, "call_flat", original)


def _eager(out) -> bool:
    return hasattr(out[0], "_numpy")


def _traced_call(rec, args, out) -> None:
    """A PartitionedCall traced into a graph: recorded as the op callback would."""
    try:
        op = out[0].op
        graph = op.graph
    except AttributeError:
        return
    rec.callback(op.type, list(args), None, list(out), op.name, graph)
