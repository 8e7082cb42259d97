"""Where a gradient element is a convention, not a derivative: each op's detector, mapped on.

After a forward evaluation, every forward node on a path from a target to an output whose
op has a convention detector (Op.convention) is asked which elements of its inputs are at
a kink, a tie, a jump or a domain edge; each hit is reported for every target that reaches
that input, as a `Site`: in the target's own elements when the input is the target (x[3]),
else in the elements of the node's input. One loop over node ids finds the candidates (no
work at all when no op of the graph has a detector); the targets reaching each node are
an int bit set per node, propagated in the same ascending order (iterative).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradcli.core.graph import FORWARD, Graph
from gradcli.core.ops import REGISTRY, Behavior
from gradcli.core.ops.convention import Convention, Hit

LISTED = 100  # elements listed per site; `count` gives them all


@dataclass
class Site:
    """The elements of one input of one node where TensorFlow's value is a convention."""

    op: str  # the op whose convention applies (an op inside a composite: abs)
    node: int
    inside: str | None  # the composite op that holds it (mean_absolute_error), else None
    entry: str | None
    line: int | None
    of: str  # what `elements` index: the target's name, or the text of the node's input
    direct: bool  # the input is the target itself
    shape: tuple[int, ...]
    count: int  # elements at the point
    elements: list[tuple[int, ...]]  # the first LISTED of them
    values: list[float]  # the input's values there
    below: list[float | None]  # the op's one-sided derivatives there (None: no such side)
    above: list[float | None]
    convention: Convention

    def label(self, k: int) -> str:
        """x[3], (x * y)[3], or x for a scalar: element k of the listed ones."""
        index = self.elements[k]
        if not index:
            return self.of
        of = self.of if self.of.isidentifier() or self.of.endswith(")") else f"({self.of})"
        return f"{of}[{','.join(map(str, index))}]"


@dataclass
class Candidates:
    """The nodes to ask (ascending) and, per node, the bit set of targets reaching it."""

    ids: list[int]
    reach: list[int]

    def reads(self, graph: Graph) -> list[int]:
        """The nodes whose values the detectors read: the candidates' inputs."""
        return list(dict.fromkeys(k for i in self.ids for k in graph[i].inputs))


NONE = Candidates([], [])


def candidates(graph: Graph, outputs, targets, on_path=None) -> Candidates:
    """Forward nodes whose op has a detector, between a target and an output (on_path:
    autodiff's reachable() nodes, when the caller has them)."""
    if not outputs or not targets:
        return NONE
    nodes = graph.nodes
    end = max(outputs) + 1
    start = min(targets)
    detected = {name for name, op in REGISTRY.items() if op.convention is not None}
    found = [
        i for i, n in enumerate(nodes[start:end], start) if n.op in detected and n.kind == FORWARD
    ]
    if not found:
        return NONE
    reach = _reaching(graph, targets, found[-1] + 1)
    if on_path is not None and all(nodes[i].diff for i in found):
        ids = [i for i in found if i < len(on_path) and on_path[i]]
        return Candidates(ids, reach) if ids else NONE
    # a gradient from an output reaches the node (floor's output too: its jump counts)
    leads = bytearray(end)
    for y in outputs:
        leads[y] = 1
    for i in range(end - 1, start - 1, -1):
        if leads[i]:
            node = nodes[i]
            for j in node.diff:
                leads[node.inputs[j]] = 1
    ids = [i for i in found if leads[i] and any(reach[k] for k in nodes[i].inputs)]
    return Candidates(ids, reach) if ids else NONE


def _reaching(graph: Graph, targets, end: int) -> list[int]:
    """Per node below end, the bit set of the targets a gradient reaches it from: through
    differentiable edges, and into (not through) the input of an op that passes none."""
    nodes = graph.nodes
    reach = [0] * end
    for t, x in enumerate(targets):
        if x < end:
            reach[x] |= 1 << t
    for i in range(min(targets), end):
        node = nodes[i]
        if node.diff:
            bits = reach[i]
            for j in node.diff:
                bits |= reach[node.inputs[j]]
            reach[i] = bits
    return reach


def find(graph: Graph, outputs, targets, values: dict, at: Candidates | None = None):
    """Per target id, the sites of the candidate nodes (values: every candidate's inputs)."""
    at = candidates(graph, outputs, targets) if at is None else at
    out: dict[int, list[Site]] = {x: [] for x in targets}
    reach = at.reach
    nodes = graph.nodes
    for i in at.ids:
        node = nodes[i]
        op = REGISTRY[node.op]
        ins = [values[k] for k in node.inputs]
        if len(ins) == 2 and type(ins[0]) is float and type(ins[1]) is float:
            # an elementwise detector's 0-d test, inline: most often nothing is at the point
            wheres = getattr(op.convention, "wheres", None)
            if wheres is not None:
                a, b = ins
                for where in wheres:
                    if where(a, b):
                        break
                else:
                    continue
            hits = op.convention(node, ins)  # the 0-d path, which never warns
        elif all(type(v) is float for v in ins):
            hits = op.convention(node, ins)  # the 0-d path, which never warns
        else:
            with np.errstate(all="ignore"):  # inf - inf in a tie test is no tie, not a warning
                hits = op.convention(node, ins)
        for hit in hits:
            k = node.inputs[hit.input]
            if not _passes(op, node, hit.input):
                continue
            for t, x in enumerate(targets):
                if reach[k] >> t & 1:
                    out[x].append(_site(graph, node, hit, k, x, ins[hit.input]))
    return out


def _passes(op, node, j: int) -> bool:
    """A gradient reaches input j through the node, or the op is one that passes none."""
    return j in node.diff or op.behavior in (Behavior.CUT, Behavior.ZERO) or not node.diff


def _site(graph: Graph, node, hit: Hit, k: int, x: int, value) -> Site:
    from gradcli.core.printing import expression

    mask = np.asarray(hit.mask, dtype=bool)
    flat = np.flatnonzero(mask)
    listed = flat[:LISTED]
    shape = mask.shape
    elements = [tuple(int(a) for a in np.unravel_index(int(f), shape)) for f in listed]
    v = np.broadcast_to(np.asarray(value, dtype=np.float64), shape).reshape(-1)
    direct = k == x
    of = graph[x].name if direct else expression(graph, k)
    return Site(
        op=hit.op or node.op,
        node=node.id,
        inside=node.op if hit.op else None,
        entry=node.entry,
        line=node.pos.line if node.pos is not None else None,
        of=of,
        direct=direct,
        shape=shape,
        count=int(flat.size),
        elements=elements,
        values=[float(a) for a in v[listed]],
        below=_sides(hit.below, shape, listed),
        above=_sides(hit.above, shape, listed),
        convention=hit.convention,
    )


def _sides(side, shape, listed) -> list[float | None]:
    if side is None:
        return [None] * len(listed)
    s = np.broadcast_to(np.asarray(side, dtype=np.float64), shape).reshape(-1)
    return [float(a) for a in s[listed]]


def count(sites: list[Site]) -> int:
    """Elements at a convention over a gradient's sites."""
    return sum(s.count for s in sites)


def per_output(problem) -> dict[tuple[str, str], list[Site]]:
    """(output name, target name) -> its sites, for explain's pairs (one forward run, on a
    copy of the problem's graph)."""
    from gradcli.core.executor import resolve_conds, run

    work = problem.scratch()
    graph, outputs, targets = work.graph, work.outputs, work.wrt
    known: dict = {}
    resolve_conds(graph, outputs, known)
    at = candidates(graph, outputs, targets)
    if not at.ids:
        return {}
    values = run(graph, at.reads(graph), known=known)
    out = {}
    for y in outputs:
        found = find(graph, [y], targets, values)
        for x, sites in found.items():
            if sites:
                out[(graph[y].name, graph[x].name)] = sites
    return out
