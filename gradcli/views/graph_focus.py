"""The part of a GraphView that matters for one finding: the paths from an input to the
outputs, with what lies off them counted and long stretches collapsed into one box.

A picture of a 5,000-node chain draws the input, the output, the culprits and the ends of
each cut edge with their neighbours; every connected stretch of other path nodes becomes
one box saying how many nodes it holds. Every walk is a loop over a work list (no
recursion), linear in the nodes and edges.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradcli.views import graph_model as gv
from gradcli.views.svg import COLLAPSED

DRAWN = 60  # a path graph of at most this many nodes is drawn whole
MAX_BOXES = 12  # more collapsed stretches than this are drawn as one box


@dataclass
class Focus:
    """A view of the paths that matter, and what was left out of it."""

    view: gv.GraphView
    collapsed: int  # path nodes drawn as '... N nodes' boxes
    off_path: int  # nodes of the graph not on any path from the input to the outputs
    connected: bool  # some path leads from the input to an output


def _walk(starts, step) -> set[int]:
    """Every node reached from starts along step (iterative)."""
    seen, todo = set(starts), list(starts)
    while todo:
        for j in step(todo.pop()):
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def paths_view(
    view: gv.GraphView, source: int, targets=None, culprits=(), limit: int = DRAWN
) -> Focus:
    """The paths from source to targets (default: the view's outputs); the culprits and the
    ends of cut edges are drawn, the rest of the paths collapsed when they are many."""
    targets = [y for y in (view.outputs if targets is None else targets) if y in view.nodes]
    succ: dict[int, list[int]] = {}
    pred: dict[int, list[int]] = {}
    for e in view.edges:
        succ.setdefault(e.source, []).append(e.target)
        pred.setdefault(e.target, []).append(e.source)
    down = _walk([source], lambda i: succ.get(i, ()))
    up = _walk(targets, lambda i: pred.get(i, ()))
    on = down & up
    connected = bool(on)
    on |= {source, *targets}
    on |= {c for c in culprits if c in view.nodes}
    on &= set(view.nodes)
    edges = [e for e in view.edges if e.source in on and e.target in on]
    keep = set(on)
    if len(on) > limit:
        keep = _kept(source, targets, culprits, edges, on, limit)
    sub = gv.GraphView({}, [], targets, [source])
    sub.findings, sub.gradients = view.findings, view.gradients
    for i in sorted(keep):
        sub.nodes[i] = view.nodes[i]
    box = _boxes(sub, on - keep, edges)
    seen: set[tuple[int, int]] = set()
    for e in edges:
        a, b = box.get(e.source, e.source), box.get(e.target, e.target)
        if a == b or ((a, b) in seen and e.cut is None):
            continue
        seen.add((a, b))
        sub.edges.append(e if a == e.source and b == e.target else gv.ViewEdge(a, b, 0, None))
    return Focus(sub, len(on - keep), len(view.nodes) - len(on), connected)


def _kept(source, targets, culprits, edges, on, limit) -> set[int]:
    """The nodes drawn when the paths are too many to draw: input, outputs, culprits, the
    ends of cut edges, then their neighbours on the paths while there is room."""
    keep = {source, *targets}
    keep |= {c for c in culprits if c in on}
    keep |= {x for e in edges if e.cut is not None for x in (e.source, e.target)}
    near: dict[int, list[int]] = {}
    for e in edges:
        near.setdefault(e.source, []).append(e.target)
        near.setdefault(e.target, []).append(e.source)
    for i in sorted(keep):
        for j in near.get(i, ()):
            if len(keep) >= limit:
                return keep
            keep.add(j)
    return keep


def _boxes(sub: gv.GraphView, hidden: set[int], edges) -> dict[int, int]:
    """Each connected stretch of hidden nodes as one collapsed node in sub: node -> box."""
    parent = {i: i for i in hidden}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for e in edges:
        if e.source in hidden and e.target in hidden:
            a, b = root(e.source), root(e.target)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for i in sorted(hidden):
        groups.setdefault(root(i), []).append(i)
    if len(groups) > MAX_BOXES:
        groups = {min(hidden): sorted(hidden)}
    box: dict[int, int] = {}
    for n, (_, members) in enumerate(sorted(groups.items()), start=1):
        index = -n
        count = len(members)
        label = f"... {count:,} more node{'s' * (count != 1)} on these paths"
        sub.nodes[index] = gv.ViewNode(
            index=index, id=f"collapsed{n}", op="", shape=(), dtype="", line=None,
            kind=COLLAPSED, name=None, label=label, marks=[], attrs={}, inputs=(),
        )  # fmt: skip
        for i in members:
            box[i] = index
    return box
