"""explain's output: the JSON document, and a Rich panel per (output, input) pair with the
paths from x to y drawn as a tree, the culprits marked with their spec line."""

from __future__ import annotations

from gradcli.core.printing import source_line
from gradcli.core.problem import NONE, ZEROS
from gradcli.explain.analysis import PARTIALLY_ZERO, UNCONNECTED, Pair
from gradcli.explain.report import Status
from gradcli.views.format import SCHEMA, block_width

LISTED = 10  # causes listed in a panel
SHOWN = 8  # longest path drawn in full; longer ones are elided around their culprits
STYLE = {
    Status.UNCONNECTED: "yellow",
    Status.PARTIALLY_ZERO: "yellow",
    Status.ZERO: "yellow",
    Status.CONNECTED: "green",
}


def document(pairs: list[Pair], sites: dict | None = None) -> dict:
    """The JSON document of an explanation (schema 1, see docs/json.md); sites: the
    elements decided by a convention, by (output, input) (core/convention_sites.py)."""
    docs = [p.document() for p in pairs]
    for p, doc in zip(pairs, docs):
        found = (sites or {}).get((p.output, p.input))
        if found:  # only where an element is a convention (other documents stay as they were)
            from gradcli.views.conventions_report import document as conventions_document

            doc["conventions"] = conventions_document(found)
    return {"schema": SCHEMA, "pairs": docs}


def title(pair: Pair) -> str:
    """dy/dx for a pair."""
    return f"d{pair.output}/d{pair.input}"


def status_text(pair: Pair, unconnected: str = NONE) -> str:
    """The pair's status in words: partially zero (k of n elements), unconnected (None), or
    unconnected (reported as zeros) where the problem asks for zeros ..."""
    if pair.status == PARTIALLY_ZERO:
        return f"partially zero ({pair.zero_elements} of {pair.elements} elements)"
    if pair.status == UNCONNECTED:
        return "unconnected (reported as zeros)" if unconnected == ZEROS else "unconnected (None)"
    return pair.status


def elide(path: list[str], keep: set[int]) -> list[str]:
    """The path with long stretches between kept positions replaced by '… N entries'."""
    if len(path) <= SHOWN:
        return path
    keep = keep | {0, 1, len(path) - 2, len(path) - 1}
    keep |= {i + d for i in list(keep) for d in (-1, 1) if 0 <= i + d < len(path)}
    out, gap = [], 0
    for i, name in enumerate(path):
        if i in keep:
            if gap:
                out.append(f"… {gap} more entr{'y' if gap == 1 else 'ies'}")
                gap = 0
            out.append(name)
        else:
            gap += 1
    return out


def path_tree(pair: Pair, problem):
    """A Rich tree of the pair's paths from x to y, culprits marked with their spec line."""
    from rich.text import Text
    from rich.tree import Tree

    marks: dict[tuple[int, str], list] = {}
    for cause in pair.causes:
        if cause.path is not None:
            marks.setdefault((cause.path, cause.node), []).append(cause)
    at_input = [c for c in pair.causes if c.path is not None and c.node == pair.input]
    head = _label(pair.input, at_input, problem) if at_input else Text(pair.input, style="bold")
    root = Tree(head, guide_style="dim")
    children: dict[tuple[int, str], tuple[int, object]] = {}
    for p, path in enumerate(pair.paths):
        culprits = {i for i, name in enumerate(path) if (p, name) in marks}
        parent_key, parent = 0, root
        for name in elide(path, culprits)[1:]:
            causes = marks.get((p, name), [])
            key = (parent_key, name + "\x00" + ",".join(c.kind for c in causes))
            if key not in children:
                children[key] = (len(children) + 1, parent.add(_label(name, causes, problem)))
            parent_key, parent = children[key]
    return root


def _label(name: str, causes, problem):
    from rich.text import Text

    if name.startswith("…"):
        return Text(name, style="dim")
    if not causes:
        return Text(name)
    kinds = ", ".join(dict.fromkeys(c.kind for c in causes))
    label = Text()
    label.append(name, style="bold red")
    label.append(f"  ✗ {kinds}", style="red")
    line = causes[0].line
    if line is not None:
        label.append(f"\nline {line}: ", style="dim")
        label.append(source_line(problem, line), style="bold")
    return label


def panel(pair: Pair, problem, width: int | None = None, marked: bool = False):
    """A Rich panel for a pair that is not fine: its reason, paths and causes (marked: a
    convention decided some of its elements, its title ends with the footnote's marker)."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    unconnected = getattr(problem, "unconnected", NONE)
    parts = [Text(f"{pair.reason or status_text(pair, unconnected)}", style="bold")]
    if pair.paths:
        parts += [Text(""), path_tree(pair, problem)]
    parts.append(Text(""))
    shown_lines = {c.line for c in pair.causes if c.path is not None}
    for cause in pair.causes[:LISTED]:
        where = f" at {cause.node}" + (f", line {cause.line}" if cause.line is not None else "")
        item = Text("✗ ", style="red")
        item.append(f"{cause.kind}{where}", style="bold")
        count = ""
        if cause.elements is not None:
            count = f" ({cause.elements} element{'s' * (cause.elements != 1)})"
        item.append(f"{count}: {cause.detail}")
        parts.append(item)
        if cause.line not in shown_lines and cause.line is not None:
            shown_lines.add(cause.line)
            source = Text(f"  line {cause.line}: ", style="dim")
            source.append(source_line(problem, cause.line))
            parts.append(source)
    if len(pair.causes) > LISTED:
        more = len(pair.causes) - LISTED
        parts.append(Text(f"… and {more} more causes (--format json lists them all)", style="dim"))
    from rich.markup import escape

    style = STYLE.get(pair.status, "yellow")
    heading = f"[bold]{escape(title(pair))}[/]: [{style}]{status_text(pair, unconnected)}[/]"
    if marked:
        from gradcli.views.conventions_report import MARKER

        heading += f" {MARKER}"
    return Panel(Group(*parts), title=heading, title_align="left", border_style=style, width=width)


def print_report(pairs: list[Pair], problem, out, sites: dict | None = None) -> None:
    """explain's table output: a panel per pair that is not fine, then the fine ones, then
    a footnote per element decided by a convention (marked after the pair's title)."""
    sites = sites or {}
    for pair in pairs:
        if not pair.ok:
            out.print(panel(pair, problem, block_width(out), (pair.output, pair.input) in sites))
    from rich.markup import escape

    from gradcli.views.conventions_report import MARKER, sentence

    def named(p):
        return escape(title(p)) + (f" {MARKER}" if (p.output, p.input) in sites else "")

    fine = [named(p) for p in pairs if p.ok]
    if fine:
        out.print(f"[green]connected, nonzero everywhere:[/] {', '.join(fine)}")
    for p in pairs:
        for site in sites.get((p.output, p.input), ()):
            out.print(escape(f"{MARKER} {title(p)}: {sentence(site)}"), soft_wrap=True)
    if not pairs:
        out.print("no gradients requested (no trainable inputs; name some with --wrt)")
