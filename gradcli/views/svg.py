"""`gradcli graph --format svg` and the pictures of `explain --html`: a GraphView as styled
DOT, laid out by Graphviz's `dot` (the system program, found on PATH).

gradcli's own styling, one table per vocabulary: inputs are ellipses (green when trainable,
grey and dashed when constant, purple when integer), outputs have a double border, forward
ops are rounded boxes and gradient nodes blue boxes. Every cut edge is red and labelled
with its cause kind and line; untaken or unused nodes are shaded grey (dead), nodes whose
gradient is zero amber, NaN/Inf origins magenta. Node names in the DOT are `n<index>`, so
no user string is ever a DOT identifier; every label is escaped (quotes, backslashes and
the `&` that Graphviz would read as an entity). SVG elements carry classes (`cut`,
`cut-<kind>`, `dead`, `zero`, `input`, `output`...) that the HTML report and the tests read.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from enum import Enum

from gradcli.core.graph import CONST_OP, GRADIENT, INPUT_OP
from gradcli.explain.report import CauseKind
from gradcli.runtime.errors import GradcliError
from gradcli.views import graph_model as gv
from gradcli.views.format import shape_text

DOT_TIMEOUT = 60.0  # seconds dot may take to lay out one graph
INSTALL_HINT = "install Graphviz (apt install graphviz, brew install graphviz, or graphviz.org)"
COLLAPSED = "collapsed"  # the kind of a ViewNode standing for nodes left out of a picture
FONT = "Helvetica,Arial,sans-serif"
CUT_RED = "#dc2626"


class Role(str, Enum):
    """How a cause kind is drawn."""

    CUT = "cut"  # a red edge, labelled with the kind and line
    ZERO = "zero"  # the culprit node shaded amber (the gradient is zero there)
    NON_FINITE = "nonfinite"  # the node where NaN/Inf is born, shaded magenta
    AFTER = "after"  # about what happened to the gradient after its call: an orange border


@dataclass(frozen=True)
class KindStyle:
    """The drawing of one cause kind: its role and colour."""

    role: Role
    color: str


_C, _Z, _N, _A = Role.CUT, Role.ZERO, Role.NON_FINITE, Role.AFTER
K = CauseKind
# every cause kind's styling (a test holds it complete)
KIND_STYLE: dict[CauseKind, KindStyle] = {
    **{k: KindStyle(_C, CUT_RED) for k in (K.NO_PATH, K.STOP_GRADIENT, K.NON_DIFFERENTIABLE,
                                          K.UNTAKEN_BRANCH, K.INTEGER)},
    **{k: KindStyle(_Z, "#d97706") for k in (K.MASK, K.INACTIVE, K.ZERO_UPSTREAM,
                                            K.CANCELLATION, K.ZERO_DERIVATIVE, K.UNSELECTED,
                                            K.UNDERFLOW)},
    **{k: KindStyle(_C, CUT_RED) for k in (K.LEAVES_TAPE, K.NOT_WATCHED, K.OUTSIDE_TAPE)},
    K.NON_FINITE: KindStyle(_N, "#a21caf"),
    **{k: KindStyle(_C, CUT_RED) for k in (K.DETACH, K.NO_GRAD, K.LEAVES_AUTOGRAD,
                                          K.REWRAPPED, K.REQUIRES_GRAD_FALSE,
                                          K.CUSTOM_FUNCTION)},
    **{k: KindStyle(_A, "#ea580c") for k in (K.NON_LEAF, K.NOT_REGISTERED,
                                            K.NOT_IN_OPTIMIZER, K.ZERO_GRAD_MISUSE,
                                            K.INPLACE, K.BACKWARD_TWICE, K.UNKNOWN)},
}  # fmt: skip
# graph_model's edge words as explain's cause kinds (when explain named no cause there)
EDGE_KINDS = {
    gv.EDGE_STOP: K.STOP_GRADIENT,
    gv.EDGE_NO_GRADIENT: K.NON_DIFFERENTIABLE,
    gv.EDGE_UNTAKEN: K.UNTAKEN_BRANCH,
    gv.EDGE_UNRESOLVED: K.UNTAKEN_BRANCH,
    gv.EDGE_CUSTOM: K.NON_DIFFERENTIABLE,
}
NODE_STYLE = {
    "trainable": {"shape": "ellipse", "style": "bold,filled", "color": "#15803d",
                  "fillcolor": "#dcfce7"},
    "constant": {"shape": "ellipse", "style": "dashed", "color": "#6b7280",
                 "fontcolor": "#374151"},
    "integer": {"shape": "ellipse", "style": "filled", "color": "#7e22ce",
                "fillcolor": "#f3e8ff"},
    "literal": {"shape": "box", "style": "dotted", "color": "#9ca3af", "fontcolor": "#4b5563"},
    "forward": {"shape": "box", "style": "rounded", "color": "#111827"},
    "gradient": {"shape": "box", "style": "rounded,filled", "color": "#1d4ed8",
                 "fillcolor": "#dbeafe"},
    COLLAPSED: {"shape": "box", "style": "dashed,rounded", "color": "#6b7280",
                "fontcolor": "#4b5563"},
}  # fmt: skip
SHADE = {"dead": "#e5e7eb", "zero": "#fef3c7", "nonfinite": "#fae8ff"}


def kind_style(kind: str) -> KindStyle:
    """The styling of a cause kind (an unknown word is drawn as a cut: never silently)."""
    try:
        return KIND_STYLE[CauseKind(kind)]
    except ValueError:
        return KindStyle(_C, CUT_RED)


def _token(word: str) -> str:
    """A word as a CSS class token (letters, digits, _ and -)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(word))


def dot_text(text) -> str:
    """A DOT quoted string for dot's SVG: quotes, backslashes and `&` escaped; a list is
    one line per item."""
    lines = text if isinstance(text, list) else [str(text)]
    escaped = []
    for s in lines:
        s = s.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
        escaped.append(s.replace("\n", " ").replace("\r", " "))
    return '"' + "\\n".join(escaped) + '"'


def _attrs(attrs: dict) -> str:
    return ", ".join(f"{k}={dot_text(v)}" for k, v in attrs.items())


def _style_key(vn: gv.ViewNode) -> str:
    if vn.kind == COLLAPSED:
        return COLLAPSED
    if vn.kind == GRADIENT:
        return "gradient"
    if vn.op == INPUT_OP:
        for mark in (gv.TRAINABLE, gv.INTEGER):
            if mark in vn.marks:
                return mark
        return "constant"
    return "literal" if vn.op == CONST_OP else "forward"


def node_lines(vn: gv.ViewNode) -> list[str]:
    """A node's label: its name or expression, its op and shape, its line."""
    if vn.kind == COLLAPSED:
        return [vn.label]
    what = vn.op if vn.op != INPUT_OP else ("input" if vn.name else "value")
    lines = [] if vn.label == vn.op else [vn.label]  # the run mode labels values by their op
    lines.append(f"{what} {shape_text(vn.shape)} {vn.dtype}".strip())
    if vn.line is not None:
        lines.append(f"line {vn.line}")
    return lines


def edge_kind(view: gv.GraphView, edge: gv.ViewEdge) -> str | None:
    """The cause kind a cut edge is labelled with: explain's kind at its consumer where
    explain named one, else the kind the edge's own word maps to; None when not cut."""
    if edge.cut is None:
        return None
    target = view.nodes[edge.target]
    for _, kind in target.causes:
        if kind_style(kind).role is Role.CUT and kind != CauseKind.NO_PATH:
            return kind
    if edge.cut in EDGE_KINDS:
        return str(EDGE_KINDS[edge.cut])
    return str(edge.cut)  # the run mode's edges carry the diagnosis's kind already


def node_classes(vn: gv.ViewNode) -> list[str]:
    """The SVG classes of a node: its style, input/output, shading and its causes' kinds."""
    classes = [_style_key(vn)]
    if vn.op == INPUT_OP:
        classes.append("input")
    if gv.OUTPUT in vn.marks:
        classes.append("output")
    if gv.WRT in vn.marks:
        classes.append("wrt")
    if gv.UNTAKEN in vn.marks or gv.UNUSED in vn.marks:
        classes.append("dead")
    roles = {kind_style(kind).role for _, kind in vn.causes}
    if Role.ZERO in roles or gv.ZERO_GRADIENT in vn.marks:
        classes.append("zero")
    if Role.NON_FINITE in roles:
        classes.append("nonfinite")
    if Role.AFTER in roles:
        classes.append("after")
    classes += [f"cause-{_token(kind)}" for kind in dict.fromkeys(k for _, k in vn.causes)]
    return classes


def _node_attrs(vn: gv.ViewNode) -> dict:
    classes = node_classes(vn)
    attrs = {"label": node_lines(vn), **NODE_STYLE[classes[0]]}
    shade = next((SHADE[c] for c in ("nonfinite", "zero", "dead") if c in classes), None)
    if shade is not None:
        styles = [s for s in attrs.get("style", "").split(",") if s and s != "filled"]
        attrs.update(style=",".join([*styles, "filled"]), fillcolor=shade)
    if "dead" in classes:
        attrs["fontcolor"] = "#6b7280"
    for _, kind in vn.causes:
        style = kind_style(kind)
        if style.role is not Role.CUT:
            attrs.update(color=style.color, penwidth="2.5")
    if gv.OUTPUT in vn.marks:
        attrs.update(peripheries="2", penwidth="1.5")
    if vn.causes:
        attrs["label"] = [
            *attrs["label"],
            *(f"! {kind}" for kind in dict.fromkeys(k for _, k in vn.causes)),
        ]
    attrs["class"] = " ".join(classes)
    attrs["tooltip"] = vn.label
    return attrs


def _edge_attrs(view: gv.GraphView, edge: gv.ViewEdge) -> dict:
    kind = edge_kind(view, edge)
    if kind is None:
        return {"color": "#4b5563"}
    line = view.nodes[edge.target].line
    label = kind if line is None else f"{kind}, line {line}"
    attrs = {"color": kind_style(kind).color, "fontcolor": kind_style(kind).color,
             "penwidth": "2.5", "label": label, "class": f"cut cut-{_token(kind)}"}  # fmt: skip
    if kind == CauseKind.UNTAKEN_BRANCH:
        attrs["style"] = "dashed"
    return attrs


def to_dot(view: gv.GraphView, title: str | None = None) -> str:
    """The view as styled DOT for dot -Tsvg: gradcli's colours, classes, cut labels."""
    out = [
        "digraph gradcli {",
        '  rankdir=TB; bgcolor="white"; nodesep=0.3; ranksep=0.35;',
        f'  node [fontsize=10, fontname={dot_text(FONT)}, margin="0.08,0.03"];',
        f"  edge [fontsize=9, fontname={dot_text(FONT)}, arrowsize=0.7];",
    ]
    if title:
        out.append(f"  label={dot_text(title)}; labelloc=t; fontsize=11;")
    for vn in view.nodes.values():
        out.append(f"  n{_ident(vn.index)} [{_attrs(_node_attrs(vn))}];")
    for e in view.edges:
        ends = f"n{_ident(e.source)} -> n{_ident(e.target)}"
        out.append(f"  {ends} [{_attrs(_edge_attrs(view, e))}];")
    if view.with_gradients:
        out += _result_notes(view)
    out.append("}")
    return "\n".join(out) + "\n"


def _result_notes(view: gv.GraphView) -> list[str]:
    """--grad: a note per gradient target saying what its gradient is, joined to its node."""
    from gradcli.views.graph_export import results

    out = []
    for k, (name, r, notes) in enumerate(results(view)):
        attrs = {"label": [f"gradient w.r.t. {name}", *notes], "shape": "note",
                 "color": "#1d4ed8", "fontcolor": "#1d4ed8", "class": "result"}  # fmt: skip
        out.append(f"  r{k} [{_attrs(attrs)}];")
        if r is not None and r in view.nodes:
            out.append(f'  n{_ident(r)} -> r{k} [color="#1d4ed8", style="bold"];')
    return out


def _ident(index: int) -> str:
    """A node index as a DOT identifier's tail (collapsed boxes have negative indices)."""
    return f"m{-index}" if index < 0 else str(index)


def find_dot() -> str:
    """The path of Graphviz's dot, or exit 2 saying how to install it."""
    path = shutil.which("dot")
    if path is None:
        raise GradcliError(f"Graphviz's dot is not on PATH; SVG and HTML need it: {INSTALL_HINT}")
    return path


def render(dot: str, timeout: float = DOT_TIMEOUT) -> str:
    """dot -Tsvg on DOT text (no shell, with a timeout): the SVG, or exit 2 saying why."""
    program = find_dot()
    try:
        done = subprocess.run(
            [program, "-Tsvg"],
            input=dot.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GradcliError(
            f"Graphviz's dot took longer than {timeout:g} s to lay out the graph; draw a "
            "smaller one (--format dot writes the DOT text without laying it out)"
        ) from None
    except OSError as exc:
        why = exc.strerror or exc
        raise GradcliError(f"cannot run Graphviz's dot ({program}): {why}") from None
    if done.returncode != 0 or not done.stdout.strip():
        said = " ".join(done.stderr.decode("utf-8", "replace").split())[:300]
        raise GradcliError(
            f"Graphviz's dot failed (exit status {done.returncode})" + (f": {said}" if said else "")
        )
    return done.stdout.decode("utf-8", "replace")


def render_many(dots: list[str], timeout: float = DOT_TIMEOUT) -> list[str]:
    """Several DOT graphs laid out by one run of dot: one SVG document each."""
    if not dots:
        return []
    out = render("".join(dots), timeout)
    docs = ["<?xml" + part for part in out.split("<?xml")[1:]]
    if len(docs) != len(dots):
        raise GradcliError(f"Graphviz's dot wrote {len(docs)} pictures for {len(dots)} graphs")
    return docs


def to_svg(view: gv.GraphView, title: str | None = None) -> str:
    """The view as a standalone SVG document laid out by dot."""
    return render(to_dot(view, title))


_PROLOG = re.compile(r"<\?xml.*?\?>|<!DOCTYPE.*?>|<!--.*?-->", re.DOTALL)


def inline(svg: str) -> str:
    """An SVG document as an element to inline in HTML: no XML prolog, doctype, comments
    or namespace declarations (HTML needs none, and none point anywhere)."""
    body = _PROLOG.sub("", svg).strip()
    return re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", body, count=2)
