"""How a TensorFlow gradient passed through each recorded op on its path: the per-op
gradient graph the diagnosis reads for zeros (`GradientCall.nodes`).

TensorFlow keeps no gradient graph to walk, but its tape answers a gradient with respect
to any tensor it recorded. So the one call the script makes is given the tensors on the
path as extra sources (`tape.gradient(target, [sources, extras])`): the script gets back
exactly the gradients it asked for, and gradcli also gets TensorFlow's gradient of the
target with respect to every intermediate value. An op's node then holds the gradient its
outputs received and, per input slot, the gradient of that input. The latter is the
input's whole gradient, summed over all its consumers, so a zero there is a zero of the
value, whichever consumer made it.

No TensorFlow import here: the tensors are the capture's, and the counts are computed by
the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gradcli.capture import tf_conv_zeros, tf_zero_kinds
from gradcli.capture.program import Captured, GradNode, OpKind

MAX_EXTRAS = 20_000  # intermediate values asked for per call; past it, no per-op graph


@dataclass
class Plan:
    """The recorded ops on a call's path and the intermediate values asked for."""

    ops: list[int]  # op indices, in the order they ran
    sources: list[int | None]  # value id per flattened source
    values: list[int] = field(default_factory=list)  # value ids of the extra sources
    tensors: list = field(default_factory=list)  # the live tensors, one per value
    operands: dict = field(default_factory=dict)  # value id -> forward tensor (products)


def path_ops(program: Captured, roots, sources, end: int) -> list[int] | None:
    """Recorded ops between the sources and the roots that carry a gradient, in the order
    they ran (None past MAX_EXTRAS): an explicit-stack walk back from the roots, then a
    forward pass over what it found."""
    ops, values = program.ops, program.values
    found: set[int] = set()
    stack = list(roots)
    seen = set(stack)
    while stack:
        v = stack.pop()
        o = values[v].op if v in values else None
        if o is None or o >= end or o in found:
            continue
        op = ops[o]
        if op.kind is not OpKind.COMPUTE or not op.records_gradient or not op.grad_enabled:
            continue
        found.add(o)
        if len(found) > MAX_EXTRAS:
            return None
        for w in op.inputs:
            if w not in seen and values[w].requires_grad and values[w].floating:
                seen.add(w)
                stack.append(w)
    reached = {s for s in sources if s is not None}
    on_path = []
    for o in sorted(found):
        op = ops[o]
        if any(w in reached for w in op.inputs):
            on_path.append(o)
            reached.update(op.outputs)
    return on_path


def plan(rec, roots, flat_ids, end: int, like) -> Plan | None:
    """The extra sources for one call: the live outputs of the ops on its path that live
    where the target does (eager, or the same traced graph); None when there are none."""
    ops = path_ops(rec.program, roots, flat_ids, end)
    if not ops:
        return None
    graph = getattr(like, "graph", None) if not _eager(like) else None
    out = Plan(ops, list(flat_ids))
    taken = set(flat_ids)
    for o in ops:
        for v in rec.program.ops[o].outputs:
            ref = rec.made.get(v)
            t = ref() if ref is not None else None
            value = rec.program.values[v]
            if t is None or v in taken or not value.requires_grad or value.dtype == "variant":
                continue  # (a TensorList's gradient is no array to count)
            if _eager(t) != (graph is None) or (graph is not None and t.graph is not graph):
                continue
            taken.add(v)
            out.values.append(v)
            out.tensors.append(t)
    for o in ops:
        op = rec.program.ops[o]
        if not tf_zero_kinds.needs_operands(op.extra.get("type")):
            continue
        for v in op.inputs:
            ref = rec.made.get(v)
            t = ref() if ref is not None else None
            if t is None or _eager(t) != (graph is None):  # (a traced graph's captured
                continue  # eager value stands for a placeholder fed something else)
            if graph is None or t.graph is graph:
                out.operands[v] = t
    return out if out.values else None


def _eager(t) -> bool:
    return hasattr(t, "_numpy")


def nodes(program: Captured, p: Plan, roots, counts: dict, arrays: dict, operands: dict):
    """The call's gradient graph, roots first: one node per op on the path (the counts of
    what its outputs received, and of each input's gradient, and the kind of zeros born
    there), one leaf node per source. counts: value id -> (elements, zeros, non-finite),
    None where TensorFlow said None; arrays: value id -> TensorFlow's gradient array;
    operands: value id -> forward array."""
    ops, values = program.ops, program.values
    uses: dict[int, int] = {}
    for o in p.ops:
        for w in ops[o].inputs:
            uses[w] = uses.get(w, 0) + 1
    made_by = {w: o for o in p.ops for w in ops[o].outputs}
    order = []  # ops, the roots' makers first, then the rest, latest first
    for r in roots:
        o = made_by.get(r)
        if o is not None and o not in order:
            order.append(o)
    order += [o for o in reversed(p.ops) if o not in order]
    index = {o: i for i, o in enumerate(order)}
    leaves = {}
    for s in p.sources:
        if s is not None and s not in made_by and s not in leaves:
            leaves[s] = len(order) + len(leaves)
    out = []
    for o in order:
        op = ops[o]
        got = [counts.get(w) for w in op.outputs]
        got = [c for c in got if c is not None]
        received = tuple(map(sum, zip(*got))) if got else None
        children, slots = [], []
        for w in op.inputs:
            if w in made_by and made_by[w] in index:
                children.append(index[made_by[w]])
            elif w in leaves:
                children.append(leaves[w])
            else:
                children.append(None)
            floating = values[w].floating and values[w].requires_grad
            slots.append(counts.get(w) if floating and children[-1] is not None else None)
        node = GradNode(o, tuple(children), out=received, slots=tuple(slots))
        node.read = _readings(program, op, arrays, operands, uses, slots)
        out.append(node)
    for s in leaves:
        out.append(GradNode(None, (), leaf=s, out=counts.get(s), slots=()))
    return out


def _same(program: Captured, op) -> bool:
    """Whether op's two inputs are one value (x * x; one variable read twice counts)."""
    if len(op.inputs) != 2:
        return False
    a, b = op.inputs
    return a == b or (_read_of(program, a) or 0) == (_read_of(program, b) or 1)


def _read_of(program: Captured, v: int):
    """(handle, state) a value was read from, for a variable's read; else None."""
    o = program.values[v].op
    if o is None or program.ops[o].extra.get("type") != "ReadVariableOp":
        return None
    return program.ops[o].inputs


def _all_zero(outputs, arrays) -> bool:
    """Whether every gradient an op's outputs received (where one was read) is zero."""
    got = [arrays.get(o) for o in outputs]
    return any(g is not None for g in got) and not any(g is not None and g.any() for g in got)


def _readings(program, op, arrays, operands, uses, slots) -> tuple | None:
    """Per input slot, (kind, elements) of the zeros born there as read from the arrays,
    or None where it could not be read (None: no slot read)."""
    gy = arrays.get(op.outputs[0]) if op.outputs else None
    if gy is None:
        return None
    if tf_zero_kinds.opaque(op.extra.get("type")) and _all_zero(op.outputs, arrays):
        # an input's gradient is linear in the gradients the op received: all of them zero,
        # it made no zeros (they were made downstream, where the walk goes on)
        return tuple(None if c is None else (None, 0) for c in slots)
    out = []
    for j, (w, c) in enumerate(zip(op.inputs, slots)):
        gx = arrays.get(w)
        found = None
        if c is not None and gx is not None:
            args = [operands.get(v) for v in op.inputs]
            try:
                if op.extra.get("type") in tf_zero_kinds.CONVS:
                    found = tf_conv_zeros.kind_at(op, j, gy, gx, args)
                else:
                    found = tf_zero_kinds.kind_at(
                        op, j, gy, gx, args, uses.get(w, 0) == 1, _same(program, op)
                    )
            except ValueError:  # shapes this reading does not follow: left to the roles
                found = None
        out.append(found)
    return tuple(out) if any(r is not None for r in out) else None
