"""`gradcli explain --html FILE`: one self-contained HTML page (inline CSS and SVG, no
script, no font, no address outside the file) with a summary at the top and, for each
gradient that is None, zero or NaN, its causes (kind, line, source line, fix) beside the
picture of the paths from its input to its output with the cut marked.

Every picture is a `graph_focus` view (only the paths that matter; long stretches
collapsed and counted) laid out by one run of dot for the whole page. Every string from
the user's program is escaped here (HTML) or in `svg` (DOT). Light and dark modes follow
the browser's prefers-color-scheme.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, replace

from gradcli.explain.report import Status
from gradcli.views import graph_model as gv
from gradcli.views.graph_focus import paths_view
from gradcli.views.svg import inline, render_many, to_dot

MAX_PICTURES = 60  # findings drawn per page; later ones are listed without a picture
MAX_CAUSES = 10  # causes listed per finding
STATUS_WORDS = {
    Status.UNCONNECTED: "None (unconnected)",
    Status.ZERO: "zero",
    Status.PARTIALLY_ZERO: "partly zero",
    Status.NON_FINITE: "NaN or Inf",
    Status.CONNECTED: "connected",
}
ERROR = "error"  # a finding that is an error the framework raised
STATUS_WORDS[ERROR] = "error"


@dataclass
class CauseRow:
    """One cause as the page lists it."""

    kind: str
    line: int | None
    detail: str
    source: str = ""
    fix: str | None = None
    where: str | None = None  # a FILE:LINE outside the program's own file


@dataclass
class Finding:
    """One gradient that is not fine (or several sharing their causes)."""

    title: str
    status: str
    reason: str
    causes: list[CauseRow]
    more_causes: int = 0
    dot: str | None = None  # its picture's DOT, laid out with the page's others
    note: str = ""  # what the picture leaves out
    svg: str = ""


@dataclass
class Section:
    """A part of the page: a spec's pairs, or one gradient call's."""

    title: str
    findings: list[Finding] = field(default_factory=list)
    fine: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def esc(text) -> str:
    """Text escaped for HTML content and attribute values."""
    return html.escape(str(text), quote=True)


def picture(view: gv.GraphView, source: int, targets, causes) -> tuple[str, str]:
    """(DOT, note) for the paths from source to targets; causes are (node index, kind)."""
    culprits = {i for i, _ in causes if i is not None}
    focus = paths_view(view, source, targets, culprits)
    blamed: dict[int, list] = {}
    for i, kind in causes:
        blamed.setdefault(source if i is None else i, []).append(kind)
    for i, vn in list(focus.view.nodes.items()):
        kinds = list(dict.fromkeys(blamed.get(i, ())))
        focus.view.nodes[i] = replace(vn, causes=[(view.nodes[source].label, k) for k in kinds])
    notes = []
    if not focus.connected:
        notes.append("no path leads from the input to the output")
    if focus.collapsed:
        notes.append(f"{_nodes(focus.collapsed)} on these paths collapsed")
    if focus.off_path:
        notes.append(f"{_nodes(focus.off_path)} off these paths not drawn")
    return to_dot(focus.view), "; ".join(notes)


def _nodes(n: int) -> str:
    return f"{n:,} node{'s' * (n != 1)}"


def draw(sections: list[Section]) -> None:
    """Lay out every finding's picture with one run of dot."""
    drawn = [f for s in sections for f in s.findings if f.dot is not None][:MAX_PICTURES]
    for finding, svg in zip(drawn, render_many([f.dot for f in drawn])):
        finding.svg = inline(svg)


CSS = """
:root{color-scheme:light dark;--bg:#ffffff;--fg:#111827;--dim:#4b5563;--card:#f9fafb;
--line:#d1d5db;--code:#f3f4f6;--red:#b91c1c;--amber:#b45309;--green:#15803d}
@media (prefers-color-scheme:dark){:root{--bg:#0f172a;--fg:#e5e7eb;--dim:#9ca3af;
--card:#111c33;--line:#334155;--code:#1e293b;--red:#f87171;--amber:#fbbf24;--green:#4ade80}
.picture svg{filter:invert(1) hue-rotate(180deg)}}
body{margin:0;padding:1.5rem;background:var(--bg);color:var(--fg);
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
h1{font-size:1.35rem;margin:0 0 .4rem}h2{font-size:1.1rem;margin:1.6rem 0 .6rem;
border-bottom:1px solid var(--line);padding-bottom:.3rem}
.summary{background:var(--card);border:1px solid var(--line);border-radius:8px;
padding:.8rem 1rem}.summary ul{margin:.3rem 0 0;padding-left:1.2rem}
.finding{display:flex;flex-wrap:wrap;gap:1rem;background:var(--card);
border:1px solid var(--line);border-left:4px solid var(--red);border-radius:8px;
padding:.8rem 1rem;margin:.8rem 0}.finding.zero,.finding.partially_zero{border-left-color:
var(--amber)}.finding .text{flex:1 1 26rem;min-width:18rem}
.finding h3{margin:0 0 .3rem;font-size:1rem}.status{color:var(--red);font-weight:600}
.zero .status,.partially_zero .status{color:var(--amber)}.reason{margin:.2rem 0 .6rem}
.cause{margin:.5rem 0}.kind{font-weight:600;color:var(--red)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
pre{background:var(--code);border-radius:4px;padding:.3rem .5rem;margin:.25rem 0;
white-space:pre-wrap;word-break:break-word}.fix{color:var(--green)}
.picture{flex:1 1 22rem;min-width:16rem;overflow:auto;text-align:center}
.picture svg{max-width:100%;height:auto;background:#ffffff;border-radius:4px}
.note,.fine{color:var(--dim);font-size:.9em}
"""


def _cause_html(c: CauseRow) -> str:
    where = f", line {c.line}" if c.line is not None else ""
    parts = [f'<div class="cause"><span class="kind">{esc(c.kind)}</span>{esc(where)}'
             f"{esc(' in ' + c.where) if c.where else ''}: {esc(c.detail)}"]  # fmt: skip
    if c.source:
        parts.append(f"<pre>{esc(c.source)}</pre>")
    if c.fix:
        parts.append(f'<div class="fix">fix: {esc(c.fix)}</div>')
    parts.append("</div>")
    return "".join(parts)


def _finding_html(f: Finding, n: int) -> str:
    out = [f'<section class="finding {esc(f.status)}" id="finding-{n}"><div class="text">',
           f'<h3>{esc(f.title)}: <span class="status">{esc(STATUS_WORDS.get(f.status, f.status))}'
           "</span></h3>", f'<p class="reason">{esc(f.reason)}</p>']  # fmt: skip
    out += [_cause_html(c) for c in f.causes]
    if f.more_causes:
        out.append(f'<p class="note">... and {f.more_causes} more causes '
                   "(--format json lists them all)</p>")  # fmt: skip
    out.append("</div>")
    if f.svg:
        note = f'<p class="note">{esc(f.note)}</p>' if f.note else ""
        out.append(f'<div class="picture">{f.svg}{note}</div>')
    elif f.dot is not None:
        out.append(f'<div class="picture note">picture left out: more than {MAX_PICTURES} '
                   "findings on this page</div>")  # fmt: skip
    out.append("</section>")
    return "\n".join(out)


def summary(sections: list[Section]) -> list[str]:
    """The summary's lines: how many gradients are fine, None, zero, NaN."""
    counts: dict[str, int] = {}
    for s in sections:
        for f in s.findings:
            counts[f.status] = counts.get(f.status, 0) + 1
    fine = sum(len(s.fine) for s in sections)
    lines = []
    for k in [*STATUS_WORDS, *(k for k in counts if k not in STATUS_WORDS)]:
        n = counts.get(k, 0)
        if n:
            lines.append(f"{n} error{'s' * (n != 1)} raised" if k == ERROR else
                         f"{n} {STATUS_WORDS.get(k, k)}")  # fmt: skip
    if fine:
        lines.append(f"{fine} connected and nonzero")
    return lines


def page(file: str, sections: list[Section]) -> str:
    """The whole HTML page (the pictures laid out by dot first)."""
    draw(sections)
    findings = sum(len(s.findings) for s in sections)
    head = "every gradient is connected and nonzero" if not findings else (
        f"{findings} finding{'s' * (findings != 1)}")  # fmt: skip
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>gradcli explain: {esc(file)}</title>", f"<style>{CSS}</style></head><body>",
           f"<h1>gradcli explain: <code>{esc(file)}</code></h1>",
           f'<div class="summary"><strong>{esc(head)}</strong><ul>']  # fmt: skip
    out += [f"<li>{esc(line)}</li>" for line in summary(sections)]
    out.append("</ul></div>")
    n = 0
    for s in sections:
        out.append(f"<h2>{esc(s.title)}</h2>")
        for f in s.findings:
            n += 1
            out.append(_finding_html(f, n))
        if s.fine:
            fine = esc(", ".join(s.fine))
            out.append(f'<p class="fine">connected, nonzero everywhere: {fine}</p>')
        out += [f'<p class="note">{esc(note)}</p>' for note in s.notes]
    out.append("</body></html>")
    return "\n".join(out) + "\n"
