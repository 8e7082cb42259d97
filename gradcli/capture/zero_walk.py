"""Where the zeros of one gradient were born, walking up from the source: each consumer
whose gradient toward the source holds zeros either made them (the edge read how many,
and why, from the framework's arrays) or received them, and only the zeros it received
lead further up. So an op upstream that zeroed elements which never reach the source's
zeros (a relu before a sum whose other terms cancel) is not named. Where several consumers
of one value (several reads of one variable) pass it nonzero terms that sum to zero, the
cancellation happens where they meet: it is named once, at the consumer that ran last (the
static reader's rule: the last use of the value, where its gradient is summed).
"""

from __future__ import annotations

from gradcli.capture.program import GradNode


def read_births(nodes: list[GradNode], own: set, toward: set) -> list[tuple]:
    """(node, elements, kind or None) for each node that made zeros of the gradient toward
    the leaf nodes `own`, in node order (roots first); kind None where the edge could not
    read the node (it is named when it holds a larger share of zeros than it received)."""
    parents: dict[int, list[tuple[int, int]]] = {}
    for i in toward:
        for slot, c in enumerate(nodes[i].children):
            if c is not None:
                parents.setdefault(c, []).append((i, slot))
    found: dict[int, tuple] = {}
    fed: dict[int, int] = {}  # node -> the value (child node) whose zeros it cancelled
    seen, stack = set(own), list(own)
    while stack:
        child = stack.pop()
        for p, slot in parents.get(child, ()):
            node = nodes[p]
            got = node.slots[slot] if node.slots and slot < len(node.slots) else None
            if got is None or not got[1]:
                continue  # no zeros flow toward the source through here
            read = node.read[slot] if node.read and slot < len(node.read) else None
            if read is not None:
                kind, born = read
                if born and p not in found:
                    found[p] = (p, born, kind)
                    fed[p] = child
                received = born < got[1]
            else:
                out = node.out
                share = out[1] / out[0] if out and out[0] else 1.0
                if got[0] and got[1] / got[0] > share and p not in found:
                    found[p] = (p, got[1], None)
                received = True
            if received and node.out and node.out[1] and p not in seen:
                seen.add(p)
                stack.append(p)
    return _met(nodes, [found[i] for i in sorted(found)], fed)


def _met(nodes: list[GradNode], births: list[tuple], fed: dict) -> list[tuple]:
    """The cancellations several consumers of one value report, as one at the consumer
    that ran last (they are one sum: the value's gradient)."""
    met: dict[int, list] = {}
    for b in births:
        if b[2] == "cancellation" and b[0] in fed:
            met.setdefault(fed[b[0]], []).append(b)
    drop = set()
    for group in met.values():
        if len(group) < 2:
            continue
        last = max(group, key=lambda b: nodes[b[0]].op if nodes[b[0]].op is not None else -1)
        drop.update(b[0] for b in group if b is not last)
    return [b for b in births if b[0] not in drop]
