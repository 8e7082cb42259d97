"""A spec's size after inlining its functions, estimated before any node is built.

Inlining is what lets a short spec describe a huge graph: ten functions that each call
the previous one twice expand into 2**10 copies of the first body. Building that graph
node by node would run for minutes before reaching the node limit, so the expansion is
counted on the ASTs first and refused at once.
"""

from __future__ import annotations

from gradcli.runtime import limits
from gradcli.runtime.errors import LimitError
from gradcli.spec import expression as ast
from gradcli.spec.lowering import _children as children

# a binary operator is written with one of these (every symbol of expression._PRECEDENCE
# has one), a call with its '(' and an index with its '['
_COUNTED_CHARS = "!%*+-/<=>@(["


def _tally(trees, functions) -> tuple[int, dict[str, int]]:
    """(nodes the trees emit themselves, {spec function: number of calls}), iteratively.

    Only calls to ops, binary operators and indexing are counted: each emits at least one
    graph node, so the estimate never exceeds the real size.
    """
    own, calls = 0, {}
    stack = [t for t in trees if t is not None]
    call, counted, leaves = ast.Call, (ast.Binary, ast.Index), (ast.Name, ast.Num, ast.Str)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind in leaves:  # the most common nodes, with nothing to count (a hot path)
            continue
        if kind is call and node.func in functions:
            calls[node.func] = calls.get(node.func, 0) + 1
        elif kind is call or kind in counted:
            own += 1
        stack.extend(children(node))
    return own, calls


def function_sizes(functions, cap: int) -> dict[str, int]:
    """Nodes each function expands into when inlined, capped at cap (recursion is skipped)."""
    tallies = {name: _tally([fn.body], functions) for name, fn in functions.items()}
    sizes: dict[str, int] = {}
    for root in functions:
        stack, on_path = [root], {root}
        while stack:  # iterative depth-first: a function's size once its callees' are known
            name = stack[-1]
            pending = [g for g in tallies[name][1] if g not in sizes and g not in on_path]
            if pending:
                stack.append(pending[0])
                on_path.add(pending[0])
                continue
            stack.pop()
            on_path.discard(name)
            own, calls = tallies[name]
            total = own + sum(n * sizes.get(g, 0) for g, n in calls.items())
            sizes[name] = min(total, cap)
    return sizes


def check_expansion(spec) -> None:
    """Refuse a spec whose graph entries would expand past the node limit."""
    limit = limits.current.max_nodes
    total = len(spec.inputs)
    if not spec.functions:
        # each node _tally counts (an operator, a call, an index) has a character of its
        # own in the entry's text: the texts' length bounds the total, with nothing inlined,
        # and so does the count of the characters those nodes are written with
        if total + sum(len(e.text) for e in spec.entries) <= limit:
            return
        text = "".join(e.text for e in spec.entries)
        if total + sum(text.count(c) for c in _COUNTED_CHARS) <= limit:
            return
    sizes = function_sizes(spec.functions, limit + 1)
    for entry in spec.entries:
        own, calls = _tally([entry.tree], spec.functions)
        total += own + sum(n * sizes.get(g, 0) for g, n in calls.items())
        if total > limit:
            raise LimitError(
                f"graph entry '{entry.name}' brings the graph, with its function calls inlined, "
                f"past {limit:,} nodes {limits.advice('max_nodes')}",
                entry.pos,
            )
