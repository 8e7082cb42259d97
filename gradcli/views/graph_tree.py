"""`gradcli graph --format tree`: a Rich tree from each output down to the inputs.

Every marking has a symbol and a word, so the tree reads the same without colour. A node
with inputs is expanded once; later uses print a one-line reference, so a DAG stays as
long as its edge count. Past MAX_DEPTH levels a sub-tree continues as a new section
below, so a 100,000-node chain prints without guides wider than the screen.
"""

from __future__ import annotations

import os

import numpy as np

from gradcli.core.graph import COND_OP, GRADIENT
from gradcli.explain.report import Status
from gradcli.views import graph_model as gv
from gradcli.views.format import nested, number, shape_text, short_number, width_of
from gradcli.views.glyphs import ASCII, can_encode

MAX_DEPTH = 24
TREE_WIDTH = 1000  # lines are never wrapped when the tree goes to a file or a pipe

# marking -> (symbol, words, style); ASCII symbols stand in when the output cannot encode these
MARKS = {
    gv.TRAINABLE: ("◆", "trainable", "green"),
    gv.CONSTANT: ("◇", "constant", "dim"),
    gv.INTEGER: ("#", "integer", "magenta"),
    gv.WRT: ("→", "wrt", "green"),
    gv.STOPS: ("✂", "stop_gradient", "bold red"),
    gv.NO_GRADIENT: ("✂", "no gradient", "bold red"),
    gv.ZERO_GRADIENT: ("≡", "zero gradient", "yellow"),
    gv.CUSTOM_GRADIENT: ("★", "custom gradient", "magenta"),
    gv.TOOK_TRUE: ("⇢", "took the true branch", "cyan"),
    gv.TOOK_FALSE: ("⇢", "took the false branch", "cyan"),
    gv.UNTAKEN: ("⊘", "not evaluated (untaken branch)", "yellow"),
}
CAUSE = ("⚠", "bold yellow")  # a node explain blames for a None or zero gradient
EDGES = {
    gv.EDGE_STOP: ("✂", "cut:", "bold red"),
    gv.EDGE_NO_GRADIENT: ("✂", "cut:", "bold red"),
    gv.EDGE_UNTAKEN: ("⊘", "untaken:", "yellow"),
    gv.EDGE_UNRESOLVED: ("⊘", "not evaluated:", "yellow"),
    gv.EDGE_CUSTOM: ("★", "body, its gradient replaced:", "magenta"),
}
TAKEN = ("✓", "taken:", "cyan")


def summary(value, dtype: str) -> str:
    """A short value: a scalar to 6 digits, up to 6 elements in full, else the range."""
    if value is gv.NOT_EVALUATED:
        return ""
    arr = np.asarray(value)
    if arr.dtype == bool:
        return number(bool(arr)) if arr.shape == () else f"{int(arr.sum())} of {arr.size} true"
    if arr.size == 0:
        return "[]"
    if arr.shape == ():
        v = arr[()]
        return number(v) if not np.issubdtype(arr.dtype, np.floating) else short_number(float(v))
    if arr.size <= 6:
        return nested(arr.shape, [short_number(v) for v in arr.ravel().tolist()], ", ")
    finite = arr[np.isfinite(arr)] if np.issubdtype(arr.dtype, np.floating) else arr
    if finite.size == 0:
        return "all non-finite"
    text = f"min {short_number(finite.min())}, max {short_number(finite.max())}"
    bad = arr.size - finite.size
    return text + (f", {bad} non-finite" if bad else "")


class TreePrinter:
    """Builds the sections of the tree for a GraphView and prints them on a Rich console."""

    def __init__(self, view: gv.GraphView, console):
        self.view = view
        self.console = console
        self.plain = not can_encode(console.encoding)
        self.expanded: set[int] = set()
        self.pending: set[int] = set()  # deferred past MAX_DEPTH, not printed yet
        self.by_target: dict[int, dict[int, gv.ViewEdge]] = {}
        for e in view.edges:
            self.by_target.setdefault(e.target, {})[e.slot] = e

    def sym(self, s: str) -> str:
        """A symbol, or its ASCII stand-in when the console cannot encode it."""
        return ASCII.get(s, s) if self.plain else s

    def trees(self):
        """The sections in order, as Rich Trees: each output, then each gradient (with --grad)."""
        view = self.view
        for y in view.outputs:
            yield from self.section(self.node_line(view.nodes[y]), y)
        if view.with_gradients:
            for x in view.wrt:
                yield from self.gradient_section(x)

    def print(self) -> None:
        """Print every section, then the inputs and entries no output uses."""
        from rich.text import Text

        view = self.view
        for tree in self.trees():
            self.emit(tree)
        unused = [vn.label for vn in view.nodes.values() if gv.UNUSED in vn.marks]
        if unused:
            self.console.print(Text("not used by the outputs: " + ", ".join(unused), style="dim"))

    def gradient_section(self, x: int):
        """The section of one gradient: its heading with explain's finding, then its tree."""
        from rich.text import Text

        view = self.view
        name = view.nodes[x].label
        r = view.gradients[name]
        outputs = ", ".join(view.nodes[y].label for y in view.outputs)
        head = Text(f"{self.sym('∇')} gradient of {outputs} w.r.t. {name}", style="bold blue")
        if r is None:
            head.append("  None (unconnected)", style="yellow")
        elif r == gv.KNOWN_ZERO:
            head.append("  zero (connected, no node)", style="yellow")
        finding = view.findings.get(name)
        if finding is not None and finding.reason:
            if finding.status == Status.PARTIALLY_ZERO:
                count = f"{finding.zero_elements} of {finding.elements} elements zero"
                head.append(f"  {count}", style="yellow")
            elif finding.status == Status.ZERO and r != gv.KNOWN_ZERO:
                head.append("  zero", style="yellow")
            head.append(f"  {self.sym(CAUSE[0])} {finding.reason}", style=CAUSE[1])
        yield from self.section(head, None, child=r if isinstance(r, int) else None)

    def section(self, label, root: int | None, child: int | None = None):
        """One tree, then the sub-trees deferred past MAX_DEPTH as their own sections."""
        from rich.tree import Tree

        todo = [(label, root, child)]
        while todo:
            label, root, child = todo.pop(0)
            deferred: list[int] = []
            stack: list = []
            if root is not None and root in self.expanded and root not in self.pending:
                tree = Tree(self.node_line(self.view.nodes[root], ref=True))
            elif root is not None:
                tree = Tree(label)
                self.expanded.add(root)
                self.pending.discard(root)
                stack = [(tree, j, slot, root, 1) for slot, j in self.children(root)]
            else:
                tree = Tree(label)
                if child is not None:
                    stack = [(tree, child, None, None, 1)]
            while stack:
                parent, i, slot, target, depth = stack.pop()
                vn = self.view.nodes[i]
                edge = self.edge(target, slot)
                if vn.inputs and i in self.expanded:
                    parent.add(self.node_line(vn, edge, ref=True))
                    continue
                branch = parent.add(self.node_line(vn, edge))
                if not vn.inputs:
                    continue
                self.expanded.add(i)
                if depth >= MAX_DEPTH and not self.shallow(i):
                    branch.add(self.note("↓", f"[{vn.id}] continues below"))
                    self.pending.add(i)
                    deferred.append(i)
                    continue
                stack.extend((branch, j, s, i, depth + 1) for s, j in self.children(i))
            yield tree
            todo[0:0] = [
                (self.node_line(self.view.nodes[i], continued=True), i, None) for i in deferred
            ]

    def shallow(self, i: int) -> bool:
        """True when every input of node i prints as one line (a leaf or a reference)."""
        nodes = self.view.nodes
        return all(not nodes[j].inputs or j in self.expanded for j in nodes[i].inputs)

    def emit(self, tree) -> None:
        """Print a section and a blank line (plain text directly: Rich is slow on 10^5 lines)."""
        if self.console.is_terminal:
            self.console.print(tree)
            self.console.print()
            return
        write = self.console.file.write
        for line in plain_lines(tree, ascii_only=self.plain):
            write(line + "\n")
        write("\n")

    def children(self, i: int) -> list[tuple[int, int]]:
        """(slot, input) pairs, reversed so that popping the stack visits them in order."""
        return list(reversed(list(enumerate(self.view.nodes[i].inputs))))

    def edge(self, target: int | None, slot: int | None):
        """The marking of the edge into target's input slot: cut, untaken or taken branch."""
        if target is None:
            return None
        e = self.by_target[target][slot]
        if e.cut is not None:  # a run's cut edges are named by the diagnosis's cause kinds
            return EDGES.get(e.cut, ("✂", f"cut ({e.cut}):", "bold red"))
        if self.view.nodes[target].op == COND_OP and slot in (1, 2):
            return TAKEN
        return None

    def node_line(self, vn: gv.ViewNode, edge=None, continued: bool = False, ref: bool = False):
        """One node: label, op, shape, dtype, value, markings and spec line (or a reference)."""
        sym = self.sym
        parts: list[tuple[str, str | None]] = []
        if edge is not None:
            symbol, words, style = edge
            parts.append((f"{sym(symbol)} {words} ", style))
        gradient = vn.kind == GRADIENT
        if gradient:
            parts.append((sym("∇") + " ", "bold blue"))
        parts.append((vn.label, "bold blue" if gradient else "bold"))
        if ref:
            below = vn.index in self.pending
            where = "continues below" if below else "shown above"
            parts.append((f"  {sym('↓' if below else '↑')} [{vn.id}] {where}", "dim"))
            return _text(parts)
        if vn.name is not None or vn.label.startswith("grad("):
            attrs = ", ".join(f"{k}={v}" for k, v in vn.attrs.items())
            op = vn.op if vn.name is not None else vn.id
            parts.append((f"  {op}" + (f"({attrs})" if attrs else ""), "cyan"))
        else:  # the label already shows the attributes
            parts.append((f"  {vn.id if vn.label != vn.id else vn.op}", "cyan"))
        parts.append((f"  {shape_text(vn.shape)} {vn.dtype}", "dim"))
        if self.view.with_values and vn.value is not gv.NOT_EVALUATED:
            parts.append((f"  = {summary(vn.value, vn.dtype)}", None))
        for mark in vn.marks:
            if mark in MARKS:
                symbol, words, style = MARKS[mark]
                parts.append((f"  {sym(symbol)} {words}", style))
        for name, _kind in vn.causes:
            parts.append((f"  {sym(CAUSE[0])} {gv.why(self.view, name)}", CAUSE[1]))
        if vn.line is not None:
            parts.append((f"  line {vn.line}", "dim"))
        if continued:
            parts.append(("  (continued)", "dim"))
        return _text(parts)

    def note(self, symbol: str, words: str):
        """A dim line in the tree: a symbol and words."""
        from rich.text import Text

        return Text(f"{self.sym(symbol)} {words}", style="dim")


def _text(parts):
    """A Rich Text from (text, style) parts, spans set directly (Text.append is slow in bulk)."""
    from rich.text import Span, Text

    spans, start = [], 0
    for piece, style in parts:
        end = start + len(piece)
        if style:
            spans.append(Span(start, end, style))
        start = end
    return Text("".join(p for p, _ in parts), spans=spans)


def plain_lines(tree, ascii_only: bool = False):
    """The lines Rich prints for a Tree of Text labels, without styles (iterative)."""
    from rich.tree import Tree

    space, cont, fork, end = Tree.ASCII_GUIDES if ascii_only else Tree.TREE_GUIDES[0]
    yield tree.label.plain
    stack = [("", list(reversed(tree.children)))]
    while stack:
        prefix, todo = stack[-1]
        if not todo:
            stack.pop()
            continue
        node = todo.pop()
        last = not todo
        yield prefix + (end if last else fork) + node.label.plain
        if node.children:
            stack.append((prefix + (space if last else cont), list(reversed(node.children))))


def print_tree(view: gv.GraphView, console) -> None:
    """Print the tree of a GraphView on a Rich console."""
    TreePrinter(view, console).print()


def tree_console(stream, colour: bool):
    """A Rich console for the tree: colour only on a terminal; unwrapped lines elsewhere."""
    from rich.console import Console

    terminal = stream.isatty()
    return Console(
        file=stream,
        no_color=not colour or not terminal or bool(os.environ.get("NO_COLOR")),
        width=width_of(stream) if terminal else TREE_WIDTH,
        highlight=False,
        soft_wrap=False,
        emoji=False,
        markup=False,
    )
