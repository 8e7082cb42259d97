"""Inside a function-like op the run mode recorded (a tf.while_loop's `While`, a tf.function
called eagerly or inside another): which ops of its body graph lie on the paths from one of
its inputs to the outputs the gradient needs, and whether a gradient can cross them.

Only the data flow is read, never values inside an iteration (TensorFlow keeps none the
capture could ask for). So the reading says one of two things: every path inside passes an
op that has no gradient (the cuts: TensorFlow's gradient through the op is then zero or
None whatever the values), or some path carries a gradient, and the zeros come from values
gradcli does not read (the ops on it that can make zeros are listed). The links come from
capture/tf_loops.py (op.extra["body"]); every op of a body graph has its graph's id in
op.extra["graph"]. No TensorFlow import here; every traversal is an explicit stack.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from gradcli.capture.program import Captured, Operation, OpKind

# roles of ops whose gradient can be zero for some values (capture/tf_ops.py's ROLES)
ZERO_ROLES = frozenset(["threshold", "mask", "saturating", "select", "rounding", "branch"])
# op types that can make NaN or Inf from finite inputs
NAN_MAKERS = frozenset(
    [
        "Log",
        "Log1p",
        "Sqrt",
        "Rsqrt",
        "RealDiv",
        "Div",
        "DivNoNan",
        "Reciprocal",
        "Inv",
        "Pow",
        "Exp",
        "Xlogy",
        "Xdivy",
        "Acos",
        "Asin",
        "Atanh",
        "Acosh",
        "Lgamma",
        "Digamma",
        "Tan",
        "Mul",
        "MatMul",
        "BatchMatMulV2",
        "Square",
        "Softplus",
    ]
)
CARRY = (OpKind.COMPUTE,)
FUNCTION_LIKE = frozenset(
    ["If", "StatelessIf", "PartitionedCall", "StatefulPartitionedCall", "While", "StatelessWhile"]
)
LOOP_WORDS = {True: "loop", False: "tf.function"}


@dataclass
class Reading:
    """What the data flow inside a function-like op says about one of its inputs."""

    op: Operation  # the function-like op read
    cuts: list[Operation] = field(default_factory=list)  # every path passes one of them
    path: list[Operation] = field(default_factory=list)  # inner ops a gradient crosses
    opaque: list[Operation] = field(default_factory=list)  # inner calls not read
    carried: bool = False  # some path inside carries a gradient
    unseen: list[str] = field(default_factory=list)  # op types on paths inside, not recorded
    enclosing: Operation | None = None  # the innermost function-like op holding the path

    def zero_makers(self) -> list[Operation]:
        """The ops on the carrying path whose gradient can be zero for some values."""
        return [op for op in self.path if op.extra.get("role") in ZERO_ROLES] + self.opaque

    def nan_makers(self) -> list[Operation]:
        """The ops on the carrying path that can make NaN or Inf from finite inputs."""
        return [op for op in self.path if op.extra.get("type") in NAN_MAKERS] + self.opaque


class Bodies:
    """The body graphs of one captured program, indexed once."""

    def __init__(self, program: Captured):
        self.program = program
        self.by_graph: dict[int, list[int]] = defaultdict(list)
        for op in program.ops:
            g = op.extra.get("graph")
            if g is not None:
                self.by_graph[g].append(op.index)

    def has_body(self, op: Operation | None) -> bool:
        """Whether the op is a function-like op whose body graph was recorded."""
        body = op.extra.get("body") if op is not None else None
        return bool(body) and body["graph"] in self.by_graph

    def read(self, op: Operation, starts, targets) -> Reading | None:
        """The reading of op's body for the paths from values `starts` (op's inputs) to
        values `targets` (op's outputs the gradient needs); None where no path inside
        joins them or op has no recorded body."""
        if not self.has_body(op):
            return None
        region = self._region(op)
        edges, grad_edges, owner = self._edges(op, region)
        starts = {v for v in starts}
        data = _reach(starts, edges)
        targets = {t for t in targets if t in data}
        if not targets:
            return None
        back = _reach(targets, _reversed(edges))
        grad = _reach(starts, grad_edges)
        ops = self.program.ops
        inner = [ops[o] for g in region for o in self.by_graph[g]]
        on_path = [o for o in inner if any(v in data and v in back for v in o.inputs + o.outputs)]
        out = Reading(op)
        out.carried = bool(targets & grad)
        for o in on_path:
            if self.has_body(o) or not any(v in grad for v in o.inputs):
                continue  # (a nested loop or function: its body's ops are read instead)
            outs = [w for w in o.outputs if w in back and w in data]
            if not outs:
                continue
            if all(w in grad for w in outs):
                if _opaque(o):
                    out.opaque.append(o)
                else:
                    out.path.append(o)
            elif not out.carried:
                out.cuts.append(o)
        for o in [op] + [ops[k] for g in region for k in self.by_graph[g]]:
            out.unseen += o.extra.get("body", {}).get("unseen", ())
        if out.carried or out.unseen:  # (a path through an op not seen may carry it)
            out.cuts = []
        out.enclosing = self._enclosing(op, out, owner)
        return out

    def _region(self, op: Operation) -> list[int]:
        """The graph ids of op's body and of every body nested in it."""
        seen: list[int] = []
        stack = [op.extra["body"]["graph"]]
        while stack:
            g = stack.pop()
            if g in seen or g not in self.by_graph:
                continue
            seen.append(g)
            for o in self.by_graph[g]:
                body = self.program.ops[o].extra.get("body")
                if body:
                    stack.append(body["graph"])
        return seen

    def _edges(self, top: Operation, region: list[int]):
        """Value-to-value edges of the region (data; those a gradient crosses), each
        function-like op through its body's links, and value id -> the function-like op
        whose body made it."""
        ops, values = self.program.ops, self.program.values
        edges: dict[int, set] = defaultdict(set)
        grad: dict[int, set] = defaultdict(set)
        owner: dict[int, int] = {}
        linked = [top] + [ops[o] for g in region for o in self.by_graph[g]]
        for o in linked:
            body = o.extra.get("body")
            if body and body["graph"] in region:
                _link(body, edges, grad)
                for o2 in self.by_graph[body["graph"]]:
                    for w in ops[o2].outputs:
                        owner.setdefault(w, o.index)
                continue
            if o is top:
                continue
            carries = o.kind in CARRY and not o.extra.get("no_grad")
            for v in o.inputs:
                for w in o.outputs:
                    edges[v].add(w)
                    if carries and _carries(values, v) and _carries(values, w):
                        grad[v].add(w)
        return edges, grad, owner

    def _enclosing(self, top: Operation, reading: Reading, owner: dict) -> Operation:
        """The innermost function-like op (top, or one nested in it) whose body holds every
        op the reading names."""
        named = reading.cuts or reading.zero_makers() or reading.path
        if not named:
            return top
        ops = self.program.ops
        chains = []
        for o in named:
            chain, w = [], (o.outputs[0] if o.outputs else None)
            seen = set()
            while w is not None and w in owner and owner[w] not in seen:
                k = owner[w]
                seen.add(k)
                chain.append(k)
                w = ops[k].outputs[0] if ops[k].outputs and ops[k] is not top else None
            chains.append(chain)
        common = [k for k in chains[0] if all(k in c for c in chains[1:])]
        return ops[common[0]] if common else top


def _link(body: dict, edges, grad) -> None:
    for outer, inner in body["inputs"]:
        edges[outer].add(inner)
        grad[outer].add(inner)
    for inner, outer in body["outputs"]:
        edges[inner].add(outer)
        grad[inner].add(outer)
    if body.get("loop"):  # body output k is the next iteration's input k
        for (inner_out, _), (_, inner_in) in zip(body["outputs"], body["inputs"]):
            edges[inner_out].add(inner_in)
            grad[inner_out].add(inner_in)


def _carries(values, v: int) -> bool:
    value = values.get(v)
    return value is not None and value.floating


def _opaque(op: Operation) -> bool:
    """A function-like op inside the body whose own body was not recorded."""
    t = op.extra.get("type", "")
    return t.startswith("__") or t in FUNCTION_LIKE


def _reversed(edges: dict) -> dict:
    out: dict[int, set] = defaultdict(set)
    for v, ws in edges.items():
        for w in ws:
            out[w].add(v)
    return out


def _reach(starts, edges: dict) -> set:
    seen, stack = set(starts), list(starts)
    while stack:
        for w in edges.get(stack.pop(), ()):
            if w not in seen:
                seen.add(w)
                stack.append(w)
    return seen


def holder(reading: Reading) -> str:
    """'loop' or 'tf.function': what holds the reading's path."""
    op = reading.enclosing or reading.op
    return LOOP_WORDS[bool(op.extra.get("body", {}).get("loop"))]


def where(reading: Reading) -> str:
    """'the tf.while_loop at line 7' for the op holding the reading's path."""
    op = reading.enclosing or reading.op
    what = "the loop (a tf.while_loop)" if op.extra["body"].get("loop") else "the tf.function"
    return f"{what} at line {op.line}"
