"""Reachability over a captured program's data flow, every traversal an explicit stack.

Two kinds of edge: the data flow (every recorded operation, from each input to each output,
and from a value that left the framework to the tensor rebuilt from that very Python
object) and the gradient flow (only operations that recorded a gradient for their outputs,
with grad mode on). A gradient is cut where the first kind of path exists and the second
does not: the cut is the operation on the path that does not carry the gradient.
"""

from __future__ import annotations

from collections import defaultdict

from gradcli.capture.program import Captured, Operation, OpKind

CARRIERS = (OpKind.COMPUTE, OpKind.INPLACE, OpKind.CUSTOM)
NOT_DATA = (OpKind.READ_GRAD, OpKind.SET_GRAD, OpKind.GRAD_MODE)


class FlowGraph:
    """Consumers of every value and the Python round trips, indexed once per program."""

    def __init__(self, program: Captured):
        self.program = program
        self.consumers: dict[int, list[int]] = defaultdict(list)
        self.rewraps: dict[int, list[int]] = defaultdict(list)  # exit op -> rewrap ops
        for op in program.ops:
            if op.kind in NOT_DATA:  # a .grad read or write: no data flows from the value
                continue
            for v in dict.fromkeys(op.inputs):
                self.consumers[v].append(op.index)
            for e in op.exits:
                self.rewraps[e].append(op.index)

    def carries(self, op: Operation, value: int) -> bool:
        """Whether a gradient flows from input `value` through `op` to its outputs."""
        values = self.program.values
        return (
            op.kind in CARRIERS
            and op.records_gradient
            and op.grad_enabled
            and values[value].requires_grad
            and values[value].floating
        )

    def forward(self, starts, end: int, gradient: bool = False) -> tuple[set, set]:
        """(values, ops) reached from `starts` through operations before index `end`."""
        ops = self.program.ops
        seen, reached = set(starts), set()
        stack = list(starts)
        while stack:
            v = stack.pop()
            for o in self.consumers.get(v, ()):
                if o >= end or (o in reached and not gradient):
                    continue
                op = ops[o]
                if gradient and not self.carries(op, v):
                    continue
                reached.add(o)
                outs = list(op.outputs)
                if gradient:  # only the outputs that carry a gradient (not max's indices)
                    outs = [w for w in outs if self.program.values[w].requires_grad]
                if not gradient and op.kind is OpKind.EXIT:
                    for r in self.rewraps.get(o, ()):
                        if r < end:
                            reached.add(r)
                            outs += ops[r].outputs
                for w in outs:
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
        return seen, reached

    def backward(self, roots, end: int) -> tuple[set, set]:
        """(values, ops) the roots were computed from, through operations before `end`."""
        ops, values = self.program.ops, self.program.values
        seen, reached = set(roots), set()
        stack = list(roots)
        while stack:
            v = stack.pop()
            o = values[v].op if v in values else None
            if o is None or o >= end or o in reached:
                continue
            reached.add(o)
            op = ops[o]
            sources = list(op.inputs)
            for e in op.exits:
                reached.add(e)
                sources += ops[e].inputs
            for w in sources:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return seen, reached
