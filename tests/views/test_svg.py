"""The SVG builder (gradcli/views/svg.py): every cause kind's styling, node styles, escaping
of hostile labels, and dot's failures as gradcli's own one-line errors."""

from __future__ import annotations

import html
import os
import re
import shutil
import stat
import xml.etree.ElementTree as ET

import pytest
from browser import needs_dot

from gradcli.core.graph import INPUT_OP
from gradcli.explain.report import CauseKind
from gradcli.runtime.errors import GradcliError
from gradcli.views import graph_model as gv
from gradcli.views import svg

RED = "#dc2626"


def node(i, label, op="mul", marks=(), line=None, causes=(), kind="forward", shape=(2,)):
    return gv.ViewNode(
        index=i, id=f"{op}#{i}", op=op, shape=shape, dtype="float32", line=line, kind=kind,
        name=None, label=label, marks=list(marks), attrs={}, inputs=(), causes=list(causes),
    )  # fmt: skip


def chain(kind: str) -> gv.GraphView:
    """x -> f -> y, with a cause of this kind drawn as its role says."""
    style = svg.KIND_STYLE[CauseKind(kind)]
    x = node(0, "x", op=INPUT_OP, marks=[gv.TRAINABLE, gv.WRT], line=3, kind="input")
    causes = [] if style.role is svg.Role.CUT else [("x", kind)]
    f = node(1, "f(x)", op="relu", line=7, causes=causes)
    y = node(2, "loss", op="sum", marks=[gv.OUTPUT], line=9, shape=())
    cut = kind if style.role is svg.Role.CUT else None
    edges = [gv.ViewEdge(0, 1, 0, cut), gv.ViewEdge(1, 2, 0, None)]
    return gv.GraphView({0: x, 1: f, 2: y}, edges, [2], [0])


def tags(root, name: str) -> list:
    """Every element of root with this local name (dot's SVG is in the SVG namespace)."""
    return [e for e in root.iter() if e.tag.rsplit("}", 1)[-1] == name]


def edge_lines(dot: str) -> list[str]:
    return [line for line in dot.splitlines() if "->" in line]


def test_every_cause_kind_has_a_style():
    assert set(svg.KIND_STYLE) == set(CauseKind)
    for kind, style in svg.KIND_STYLE.items():
        assert re.fullmatch(r"#[0-9a-f]{6}", style.color), kind
        if style.role is svg.Role.CUT:
            assert style.color == RED, kind  # every cut edge is red


@pytest.mark.parametrize("kind", list(CauseKind), ids=str)
def test_each_kind_is_drawn_as_its_role_says(kind):
    dot = svg.to_dot(chain(kind))
    style = svg.KIND_STYLE[kind]
    first = edge_lines(dot)[0]
    if style.role is svg.Role.CUT:
        assert f'class="cut cut-{kind}"' in first
        assert f'color="{RED}"' in first and f'label="{kind}, line 7"' in first
    else:
        culprit = next(line for line in dot.splitlines() if line.startswith("  n1 "))
        assert f"cause-{kind}" in culprit and f'color="{style.color}"' in culprit
        assert f"! {kind}" in culprit
        assert {"zero": "zero", "nonfinite": "nonfinite", "after": "after"}[style.role.value] in (
            culprit.split('class="')[1].split('"')[0].split()
        )
        assert "cut" not in first


@needs_dot
def test_every_kinds_styling_survives_dot():
    kinds = list(CauseKind)
    docs = svg.render_many([svg.to_dot(chain(k)) for k in kinds])
    for kind, doc in zip(kinds, docs):
        root = ET.fromstring(doc)
        classes = [html.unescape(g.get("class", "")) for g in tags(root, "g")]
        if svg.KIND_STYLE[kind].role is svg.Role.CUT:
            assert f"edge cut cut-{kind}" in classes, kind
            cut = next(g for g in tags(root, "g") if g.get("class", "").startswith("edge cut"))
            assert any(p.get("stroke") == RED for p in tags(cut, "path"))
            texts = "".join(t.text or "" for t in tags(cut, "text"))
            assert texts == f"{kind}, line 7"
        else:
            assert any(f"cause-{kind}" in c.split() for c in classes), kind


def test_inputs_constants_outputs_and_dead_nodes_are_told_apart():
    nodes = {
        0: node(0, "w", op=INPUT_OP, marks=[gv.TRAINABLE], kind="input"),
        1: node(1, "c", op=INPUT_OP, marks=[gv.CONSTANT], kind="input"),
        2: node(2, "k", op=INPUT_OP, marks=[gv.INTEGER], kind="input"),
        3: node(3, "a", marks=[gv.UNTAKEN]),
        4: node(4, "b", marks=[gv.UNUSED]),
        5: node(5, "y", marks=[gv.OUTPUT]),
        6: node(6, "g", kind="gradient"),
        7: node(7, "h", marks=[gv.ZERO_GRADIENT]),
    }
    lines = {int(m.group(1)): m.group(0) for m in re.finditer(r"^  n(\d+) \[.*$", svg.to_dot(
        gv.GraphView(nodes, [], [5], [0])), re.M)}  # fmt: skip

    def classes(i):
        return lines[i].split('class="')[1].split('"')[0].split()

    assert classes(0)[:2] == ["trainable", "input"] and "#15803d" in lines[0]
    assert classes(1)[:2] == ["constant", "input"] and "dashed" in lines[1]
    assert classes(2)[:2] == ["integer", "input"]
    assert "dead" in classes(3) and "dead" in classes(4) and svg.SHADE["dead"] in lines[3]
    assert "output" in classes(5) and 'peripheries="2"' in lines[5]
    assert classes(6)[0] == "gradient"
    assert "zero" in classes(7) and svg.SHADE["zero"] in lines[7]


def test_node_labels_hold_op_shape_and_line():
    assert svg.node_lines(node(1, "h", op="relu", line=6)) == ["h", "relu (2,) float32", "line 6"]
    # the run mode labels a value by the op that made it: said once
    assert svg.node_lines(node(1, "relu", op="relu")) == ["relu (2,) float32"]


def test_graph_model_edge_words_are_named_by_cause_kinds():
    view = chain(CauseKind.MASK)
    for word, kind in svg.EDGE_KINDS.items():
        view.edges[0] = gv.ViewEdge(0, 1, 0, word)
        assert svg.edge_kind(view, view.edges[0]) == kind
    # explain's own kind at the consumer wins (a tape boundary, a cast to integer)
    view.nodes[1].causes = [("x", CauseKind.NOT_WATCHED)]
    assert svg.edge_kind(view, view.edges[0]) == CauseKind.NOT_WATCHED


HOSTILE = 'a "q" \\N \\l & &amp; <script>alert(1)</script> --> \u00e9'


def test_hostile_labels_are_escaped_in_dot():
    text = svg.dot_text(HOSTILE)
    assert text.startswith('"') and text.endswith('"')
    inner = text[1:-1]
    assert '"' not in inner.replace('\\"', "")  # every quote escaped
    assert "&amp;amp;" in inner and "\\\\N" in inner  # no entity or \N escape reaches dot


@needs_dot
def test_hostile_labels_come_out_of_dot_as_text():
    x = node(0, HOSTILE, op=INPUT_OP, marks=[gv.TRAINABLE], kind="input")
    y = node(1, "y", marks=[gv.OUTPUT], line=2)
    view = gv.GraphView({0: x, 1: y}, [gv.ViewEdge(0, 1, 0, "detach")], [1], [0])
    doc = svg.to_svg(view)
    assert "<script" not in doc
    root = ET.fromstring(doc)  # well-formed XML
    texts = [t.text for t in tags(root, "text")]
    assert HOSTILE in texts
    element = svg.inline(doc)
    assert element.startswith("<svg") and "<!--" not in element and "http" not in element


SLEEP = shutil.which("sleep")


def fake_dot(tmp_path, body: str) -> str:
    path = tmp_path / "dot"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(tmp_path)


def test_dot_missing_is_one_line_saying_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(GradcliError) as err:
        svg.render("digraph {}")
    assert "apt install graphviz" in err.value.message and "\n" not in err.value.message


@pytest.mark.skipif(os.name != "posix", reason="a shell script stands in for dot")
def test_dot_failing_or_hanging_is_gradclis_own_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", fake_dot(tmp_path, "echo 'syntax error in line 1' >&2; exit 1"))
    with pytest.raises(GradcliError, match=r"dot failed \(exit status 1\): syntax error in line 1"):
        svg.render("digraph {}")
    monkeypatch.setenv("PATH", fake_dot(tmp_path, f"exec {SLEEP} 30"))
    with pytest.raises(GradcliError, match=r"took longer than 0\.5 s"):
        svg.render("digraph {}", timeout=0.5)
