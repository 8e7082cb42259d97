"""Graph nodes back to short expression text, and the spec lines they come from.

Used to name culprits in explanations: `expression(graph, i)` renders node i the way a
spec would write it (`x * mask`, `x > 0`, `relu(x @ w)`), expanding at most a few levels
and naming inputs and graph entries by their names. No recursion: nodes are rendered in
id order, which is topological.
"""

from __future__ import annotations

import numpy as np

from gradcli.core.graph import CONST_OP, CUSTOM_OP, INPUT_OP, Graph, custom_arity
from gradcli.core.ops import ATOM, REGISTRY, UNARY, AttrKind, Behavior

ELLIPSIS = "…"


def _number(v) -> str:
    """A number as a spec writes it: 3 not 3.0, true/false for booleans."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    v = float(v)
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    return str(int(v)) if v == int(v) and abs(v) < 1e16 else repr(v)


def _constant(value) -> str:
    arr = np.asarray(value)
    if arr.shape == ():
        return _number(arr[()])
    if arr.size <= 6:
        return str(np.vectorize(_number, otypes=[object])(arr).tolist()).replace("'", "")
    return f"<{'x'.join(map(str, arr.shape))} constant>"


def _index(index) -> str:
    parts = []
    for item in index:
        if isinstance(item, slice):
            text = ":".join("" if v is None else str(v) for v in (item.start, item.stop))
            if item.step is not None:
                text += f":{item.step}"
            parts.append(text)
        elif item is Ellipsis:
            parts.append("...")
        else:
            parts.append(str(item))  # an integer, or None (a new axis)
    return ", ".join(parts)


def _inputs(node) -> tuple[int, ...]:
    """The inputs shown in a node's text (a custom call shows its arguments, not its body)."""
    return node.inputs[: custom_arity(node)] if node.op == CUSTOM_OP else node.inputs


def expression(graph: Graph, i: int, depth: int = 3, width: int = 60) -> str:
    """Node i as spec text, its own expression expanded even when it is a named entry."""
    nodes = graph.nodes
    level = {i: 0}
    stack = [i]
    while stack:
        n = stack.pop()
        node = nodes[n]
        if (node.name is not None and n != i) or node.op in (CONST_OP, INPUT_OP):
            continue
        if level[n] >= depth:
            continue
        for k in _inputs(node):
            if k not in level or level[k] > level[n] + 1:
                level[k] = level[n] + 1
                stack.append(k)
    texts: dict[int, tuple[str, int]] = {}  # id -> (text, precedence)
    for n in sorted(level):
        node = nodes[n]
        texts[n] = _render(node, n == i, level[n] >= depth, texts)
    text = texts[i][0]
    return text if len(text) <= width else text[: width - 1] + ELLIPSIS


def _render(node, root: bool, leaf: bool, texts) -> tuple[str, int]:
    if node.name is not None and not root:
        return node.name, ATOM
    if node.op == CONST_OP:
        return _constant(node.attrs["value"]), ATOM
    if node.op == INPUT_OP:
        return node.name or "input", ATOM
    if leaf:
        return ELLIPSIS, ATOM

    def arg(k: int, bound: int = 0, right: bool = False) -> str:
        text, prec = texts.get(k, (ELLIPSIS, ATOM))
        if prec < bound or (right and prec == bound):
            return f"({text})"
        return text

    op, ins = REGISTRY[node.op], _inputs(node)
    operator = op.operator
    if operator is not None and operator.prefix:
        return f"{operator.symbol}{arg(ins[0], UNARY)}", UNARY
    if operator is not None and len(ins) == 2:
        sym, prec = operator.symbol, operator.precedence
        if operator.right:  # x ** y ** z is x ** (y ** z)
            return f"{arg(ins[0], prec, True)} {sym} {arg(ins[1], prec)}", prec
        return f"{arg(ins[0], prec)} {sym} {arg(ins[1], prec, True)}", prec
    if op.behavior is Behavior.CUSTOM:
        return f"{node.attrs['function']}({', '.join(arg(k) for k in ins)})", ATOM
    if op.printer is not None:
        return op.printer(node, texts.get(ins[0], (ELLIPSIS, ATOM)), _index)
    args = [arg(k) for k in ins]
    leading = [
        f"'{node.attrs[a.name]}'" if a.kind is AttrKind.STR else str(list(node.attrs[a.name]))
        for a in op.attrs
        if a.leading
    ]
    if op.arity is None and not leading:  # concat, stack: one list of tensors
        return f"{op.name}([{', '.join(args)}])", ATOM
    args = leading + args
    for attr in op.attrs:
        if attr.leading:
            continue
        value = node.attrs.get(attr.name)
        if attr.kind in (AttrKind.STR, AttrKind.NUMBER_OR_STR) and isinstance(value, str):
            args.append(f"{attr.name}='{node.attrs[attr.name]}'")
        elif attr.kind is AttrKind.DTYPE:
            args.append(f"'{node.dtype}'")
        elif attr.kind is AttrKind.BOOL:  # a flag shows when it is not the default
            if value is not None and bool(value) != bool(attr.default):
                args.append(f"{attr.name}={_number(bool(value))}")
        elif node.attrs.get(attr.name) is not None:
            value = node.attrs[attr.name]
            value = list(value) if isinstance(value, tuple) else value
            args.append(f"{attr.name}={value}")
    return f"{op.name}({', '.join(args)})", ATOM


def entry_line(problem, name: str | None) -> int | None:
    """The spec line of a graph entry or input (its name's line), None when unknown."""
    pos = problem.source.positions.get(name) if name is not None else None
    return pos.line if pos is not None else None


def source_line(problem, line: int | None) -> str:
    """The text of a spec line (without its indentation), '' when unknown."""
    lines = problem.source.lines
    if line is None or not 1 <= line <= len(lines):
        return ""
    return lines[line - 1].strip()
