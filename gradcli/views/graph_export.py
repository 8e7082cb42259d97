"""`gradcli graph` as Graphviz DOT, a Mermaid flowchart, or JSON, from one GraphView.

DOT and Mermaid text is ASCII apart from what the spec itself contains, so `dot -Tsvg`
needs no special fonts. Styles: inputs are ellipses (bold green when trainable, grey when
constant), forward ops rounded boxes, gradient nodes filled blue boxes, cutting nodes
red; an edge along which no gradient flows is dashed (red, or grey for an untaken branch).
"""

from __future__ import annotations

import sys

from gradcli.core.graph import CONST_OP, GRADIENT, INPUT_OP
from gradcli.core.problem import CONNECTED, UNCONNECTED
from gradcli.views import graph_model as gv
from gradcli.views.format import SCHEMA, dims, dumps, shape_text

# DOT attributes per kind of node
DOT_STYLE = {
    "trainable": {"shape": "ellipse", "style": "bold", "color": "#15803d"},
    "constant": {"shape": "ellipse", "color": "#6b7280", "fontcolor": "#374151"},
    "integer": {"shape": "ellipse", "color": "#7e22ce"},
    "literal": {"shape": "plaintext", "fontcolor": "#4b5563"},
    "forward": {"shape": "box", "style": "rounded", "color": "#111827"},
    "gradient": {
        "shape": "box",
        "style": "rounded,filled",
        "color": "#1d4ed8",
        "fillcolor": "#dbeafe",
    },
}
MARK_WORDS = {
    gv.TRAINABLE: "trainable",
    gv.INTEGER: "integer",
    gv.STOPS: "stop_gradient",
    gv.NO_GRADIENT: "no gradient",
    gv.ZERO_GRADIENT: "zero gradient",
    gv.CUSTOM_GRADIENT: "custom gradient",
    gv.TOOK_TRUE: "took true branch",
    gv.TOOK_FALSE: "took false branch",
    gv.UNTAKEN: "untaken branch",
    gv.UNUSED: "unused",
    gv.WRT: "wrt",
}
CUTTING = (gv.STOPS, gv.NO_GRADIENT)


def _style_key(vn: gv.ViewNode) -> str:
    if vn.kind == GRADIENT:
        return "gradient"
    if vn.op == INPUT_OP:
        for mark in (gv.TRAINABLE, gv.INTEGER):
            if mark in vn.marks:
                return mark
        return "constant"
    return "literal" if vn.op == CONST_OP else "forward"


def _lines(view: gv.GraphView, vn: gv.ViewNode) -> list[str]:
    """The text of a node box: label, op and type, markings, explain's blame, spec line."""
    lines = [vn.label, f"{vn.op} {shape_text(vn.shape)} {vn.dtype}"]
    words = [MARK_WORDS[m] for m in vn.marks if m in MARK_WORDS]
    if vn.op == INPUT_OP and gv.CONSTANT in vn.marks:
        words.insert(0, "constant")
    if words:
        lines.append("[" + ", ".join(words) + "]")
    lines.extend(f"! {gv.why(view, name)}" for name, _ in vn.causes)
    if vn.line is not None:
        lines.append(f"line {vn.line}")
    return lines


def _dot_string(text) -> str:
    """A DOT quoted string (backslashes and quotes escaped); a list is one line per item."""
    lines = text if isinstance(text, list) else [str(text)]
    return '"' + "\\n".join(s.replace("\\", "\\\\").replace('"', '\\"') for s in lines) + '"'


def _dot_attrs(attrs: dict) -> str:
    return ", ".join(f"{k}={_dot_string(v)}" for k, v in attrs.items())


def results(view: gv.GraphView):
    """(target name, result node index or None, notes) for every gradient target."""
    for x in view.wrt:
        name = view.nodes[x].label
        r = view.gradients[name]
        notes = []
        if r is None:
            notes.append("None (unconnected)")
        elif r == gv.KNOWN_ZERO:
            notes.append("zero (connected)")
        finding = view.findings.get(name)
        if finding is not None and finding.reason:
            notes.append(finding.reason)
        yield name, r if isinstance(r, int) else None, notes


def to_dot(view: gv.GraphView) -> str:
    """The view as a Graphviz digraph, inputs at the top and outputs at the bottom."""
    out = ["digraph gradcli {", "  rankdir=TB;", "  node [fontsize=10];", "  edge [fontsize=9];"]
    for vn in view.nodes.values():
        attrs = {"label": _lines(view, vn), **DOT_STYLE[_style_key(vn)]}
        if any(m in vn.marks for m in CUTTING):
            attrs.update(color="#dc2626", penwidth=2)
        if vn.causes:
            attrs.update(penwidth=3)
        if gv.UNTAKEN in vn.marks or gv.UNUSED in vn.marks:
            attrs["fontcolor"] = "#9ca3af"
        if gv.OUTPUT in vn.marks:
            attrs["peripheries"] = 2
        out.append(f"  {_dot_string(vn.id)} [{_dot_attrs(attrs)}];")
    for e in view.edges:
        attrs = {}
        if e.cut in (gv.EDGE_UNTAKEN, gv.EDGE_UNRESOLVED):
            attrs = {"style": "dashed", "color": "#9ca3af", "label": "untaken"}
        elif e.cut is not None:
            attrs = {"style": "dashed", "color": "#dc2626", "label": e.cut}
        src, dst = view.nodes[e.source].id, view.nodes[e.target].id
        tail = f" [{_dot_attrs(attrs)}]" if attrs else ""
        out.append(f"  {_dot_string(src)} -> {_dot_string(dst)}{tail};")
    if view.with_gradients:
        for name, r, notes in results(view):
            key = _dot_string(f"gradient of {name}")
            label = [f"gradient w.r.t. {name}", *notes]
            attrs = {"label": label, "shape": "note", "color": "#1d4ed8", "fontcolor": "#1d4ed8"}
            out.append(f"  {key} [{_dot_attrs(attrs)}];")
            if r is not None:
                edge = {"color": "#1d4ed8", "style": "bold"}
                out.append(f"  {_dot_string(view.nodes[r].id)} -> {key} [{_dot_attrs(edge)}];")
    out.append("}")
    return "\n".join(out) + "\n"


def _mermaid_text(text: str) -> str:
    """Text for a quoted Mermaid label: characters Mermaid or HTML would read as syntax escaped."""
    out = []
    for ch in text:
        if ch in '"#<>&':
            out.append(f"#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def to_mermaid(view: gv.GraphView) -> str:
    """The view as a Mermaid flowchart (top to bottom; gradient nodes in their own class)."""
    out = ["flowchart TB"]
    classes: dict[str, list[str]] = {}
    for vn in view.nodes.values():
        label = "<br>".join(_mermaid_text(line) for line in _lines(view, vn))
        mid = f"n{vn.index}"
        if vn.op == INPUT_OP:
            out.append(f'  {mid}(["{label}"])')
        else:
            out.append(f'  {mid}["{label}"]')
        key = _style_key(vn)
        if any(m in vn.marks for m in CUTTING):
            key = "cut"
        if vn.causes:
            key = "cause"
        classes.setdefault(key, []).append(mid)
    for e in view.edges:
        src, dst = f"n{e.source}", f"n{e.target}"
        if e.cut is None:
            out.append(f"  {src} --> {dst}")
        else:
            word = "untaken" if e.cut in (gv.EDGE_UNTAKEN, gv.EDGE_UNRESOLVED) else "cut"
            out.append(f"  {src} -. {word} .-> {dst}")
    defs = {
        "trainable": "stroke:#15803d,stroke-width:2px",
        "constant": "stroke:#6b7280",
        "integer": "stroke:#7e22ce",
        "literal": "stroke:#9ca3af,stroke-dasharray:2 2",
        "forward": "stroke:#111827",
        "gradient": "fill:#dbeafe,stroke:#1d4ed8",
        "cut": "stroke:#dc2626,stroke-width:2px",
        "cause": "stroke:#d97706,stroke-width:3px",
    }
    for key, ids in classes.items():
        out.append(f"  classDef {key} {defs[key]}")
        out.append(f"  class {','.join(ids)} {key}")
    return "\n".join(out) + "\n"


def to_json(view: gv.GraphView) -> dict:
    """The view as a JSON document (schema 1): nodes, edges, outputs and gradient results."""
    nodes = view.nodes
    doc: dict = {
        "schema": SCHEMA,
        "nodes": [
            {
                "id": vn.id,
                "op": vn.op,
                "shape": dims(vn.shape),
                "dtype": vn.dtype,
                "line": vn.line,
                "kind": vn.kind,
                "name": vn.name,
                "label": vn.label,
                "marks": vn.marks,
                "attrs": vn.attrs,
                "origin": vn.origin,
                "causes": [{"input": name, "kind": kind} for name, kind in vn.causes],
            }
            for vn in nodes.values()
        ],
        "edges": [
            {
                "from": nodes[e.source].id,
                "to": nodes[e.target].id,
                "slot": e.slot,
                "cut": e.cut is not None,
                "reason": e.cut,
            }
            for e in view.edges
        ],
        "outputs": [nodes[y].id for y in view.outputs],
        "wrt": [nodes[x].id for x in view.wrt],
    }
    if view.with_gradients:
        doc["gradients"] = {}
        for name, r in view.gradients.items():
            finding = view.findings.get(name)
            doc["gradients"][name] = {
                "node": nodes[r].id if isinstance(r, int) else None,
                "status": UNCONNECTED if r is None else CONNECTED,
                "zero_elements": finding.zero_elements if finding else None,
                "reason": finding.reason if finding else None,
            }
    return doc


def write(view: gv.GraphView, fmt: str, stream) -> None:
    """Write the view to stream as a tree, DOT, Mermaid, JSON or SVG (laid out by dot)."""
    if fmt == "tree":
        from gradcli.views.graph_tree import print_tree, tree_console

        print_tree(view, tree_console(stream, colour=stream is sys.stdout))
    elif fmt == "dot":
        stream.write(to_dot(view))
    elif fmt == "svg":
        from gradcli.views.svg import to_svg

        stream.write(to_svg(view))
    elif fmt == "mermaid":
        stream.write(to_mermaid(view))
    else:
        stream.write(dumps(to_json(view)) + "\n")
