"""The HTML builder (views/html_report.py) and the paths it draws (views/graph_focus.py):
every cause kind on a page, escaping, self-containment, large graphs collapsed."""

from __future__ import annotations

import re
import time

import pytest
from browser import needs_dot

from gradcli.core.graph import INPUT_OP
from gradcli.explain.report import CauseKind
from gradcli.views import graph_model as gv
from gradcli.views import html_report as hr
from gradcli.views.graph_focus import paths_view
from gradcli.views.svg import COLLAPSED, KIND_STYLE, Role


def node(i, label, op="sin", marks=(), line=None, kind="forward"):
    return gv.ViewNode(
        index=i, id=f"{op}#{i}", op=op, shape=(), dtype="float64", line=line, kind=kind,
        name=None, label=label, marks=list(marks), attrs={}, inputs=(),
    )  # fmt: skip


def chain_view(n: int, cut_at: int | None = None, side: int = 0) -> gv.GraphView:
    """x = node 0 -> 1 -> ... -> n-1 (the output); `side` more nodes hang off node 1."""
    nodes = {0: node(0, "x", op=INPUT_OP, marks=[gv.TRAINABLE], kind="input")}
    edges = []
    for i in range(1, n):
        nodes[i] = node(i, f"a{i}", op="stop_gradient" if i == cut_at else "sin", line=i + 3)
        edges.append(gv.ViewEdge(i - 1, i, 0, gv.EDGE_STOP if i == cut_at else None))
    for k in range(side):
        j = n + k
        nodes[j] = node(j, f"s{k}")
        edges.append(gv.ViewEdge(1, j, 0, None))
    nodes[n - 1].marks.append(gv.OUTPUT)
    return gv.GraphView(nodes, edges, [n - 1], [0])


def test_a_small_path_graph_is_drawn_whole_and_side_nodes_counted():
    focus = paths_view(chain_view(6, cut_at=3, side=4), 0)
    assert sorted(focus.view.nodes) == [0, 1, 2, 3, 4, 5]
    assert focus.collapsed == 0 and focus.off_path == 4 and focus.connected
    assert [e.cut for e in focus.view.edges].count(gv.EDGE_STOP) == 1


def test_up_to_60_path_nodes_are_drawn_whole():
    assert len(paths_view(chain_view(60), 0).view.nodes) == 60
    focus = paths_view(chain_view(61), 0)
    assert focus.collapsed > 0 and any(vn.kind == COLLAPSED for vn in focus.view.nodes.values())


def test_a_5000_node_chain_keeps_the_ends_and_the_cut_and_collapses_the_rest():
    view = chain_view(5000, cut_at=2500)
    start = time.perf_counter()
    focus = paths_view(view, 0)
    assert time.perf_counter() - start < 2.0
    boxes = [vn for vn in focus.view.nodes.values() if vn.kind == COLLAPSED]
    kept = sorted(i for i in focus.view.nodes if i >= 0)
    assert {0, 4999, 2499, 2500} <= set(kept) and len(kept) < 20
    assert len(boxes) == 2 and focus.collapsed == 5000 - len(kept)
    counts = sorted(int(re.search(r"([\d,]+) more", b.label)[1].replace(",", "")) for b in boxes)
    assert sum(counts) == focus.collapsed
    # the cut edge itself is drawn, between the nodes it joins
    assert [(e.source, e.target) for e in focus.view.edges if e.cut] == [(2499, 2500)]


def test_a_100000_node_chain_is_walked_without_recursion():
    focus = paths_view(chain_view(100_000, cut_at=50_000), 0)
    assert len(focus.view.nodes) < 30


def test_no_path_draws_both_ends_unconnected():
    view = chain_view(4)
    view.nodes[9] = node(9, "u", op=INPUT_OP, marks=[gv.TRAINABLE], kind="input")
    focus = paths_view(view, 9)
    assert not focus.connected and sorted(focus.view.nodes) == [3, 9] and not focus.view.edges


def kind_page() -> str:
    """One page holding a finding of every cause kind, each with its picture."""
    section = hr.Section("every kind")
    for kind in CauseKind:
        view = chain_view(4, cut_at=2)
        role = KIND_STYLE[kind].role
        # a cut kind is on the edge into its culprit (as the run mode draws it)
        view.edges[1] = gv.ViewEdge(1, 2, 0, str(kind) if role is Role.CUT else None)
        causes = [(2, str(kind))]
        cause = hr.CauseRow(str(kind), 5, f"detail of {kind}", "a2 = f(a1)", f"fix {kind}")
        finding = hr.Finding(f"dloss/dx ({kind})", "unconnected", f"because {kind}", [cause])
        finding.dot, finding.note = hr.picture(view, 0, [3], causes)
        section.findings.append(finding)
    section.fine = ["dloss/dw"]
    return hr.page("every_kind.yaml", [section])


@needs_dot
def test_every_cause_kind_is_listed_and_drawn_with_its_style():
    page = kind_page()
    for kind in CauseKind:
        assert f'<span class="kind">{kind}</span>, line 5: detail of {kind}' in page
        assert f'<div class="fix">fix: fix {kind}</div>' in page
        cls = {Role.CUT: f"cut cut&#45;{kind}"}.get(KIND_STYLE[kind].role, f"cause&#45;{kind}")
        assert cls in page, kind
    assert page.count('<div class="picture"><svg') == len(CauseKind)
    assert f"{len(CauseKind)} None (unconnected)" in page and "1 connected and nonzero" in page


@needs_dot
def test_the_page_is_self_contained():
    page = kind_page()
    lowered = page.lower()
    for needle in ("http:", "https:", "<script", "src=", "@import", "url(", "<link", "@font-face"):
        assert needle not in lowered, needle
    assert "prefers-color-scheme:dark" in page  # the dark mode
    assert page.startswith("<!DOCTYPE html>")


@needs_dot
def test_user_strings_are_escaped():
    bad = "</pre><script>alert(\"x\")</script> & 'q'"
    cause = hr.CauseRow("stop_gradient", 3, bad, bad, bad, None)
    finding = hr.Finding(bad, "unconnected", bad, [cause])
    view = chain_view(3)
    view.nodes[0].label = bad
    finding.dot, _ = hr.picture(view, 0, [2], [])
    page = hr.page(bad, [hr.Section(bad, [finding], [bad], [bad])])
    assert "<script" not in page and "</pre><script" not in page
    assert (
        "&lt;/pre&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;q&#x27;" in page
    )


def test_the_summary_counts_each_status():
    sections = [hr.Section("s", [hr.Finding("a", "unconnected", "", []),
                                 hr.Finding("b", "zero", "", []),
                                 hr.Finding("c", "unconnected", "", []),
                                 hr.Finding("d", "non_finite", "", [])], ["e", "f"])]  # fmt: skip
    assert hr.summary(sections) == [
        "2 None (unconnected)", "1 zero", "1 NaN or Inf", "2 connected and nonzero"
    ]  # fmt: skip


@pytest.mark.parametrize("count", [hr.MAX_PICTURES + 3])
@needs_dot
def test_pictures_beyond_the_limit_are_listed_without_one(count):
    section = hr.Section("many")
    for k in range(count):
        finding = hr.Finding(f"d/dx{k}", "unconnected", "", [])
        finding.dot, finding.note = hr.picture(chain_view(3), 0, [2], [])
        section.findings.append(finding)
    page = hr.page("many", [section])
    assert page.count("<svg") == hr.MAX_PICTURES
    assert page.count("picture left out") == 3
