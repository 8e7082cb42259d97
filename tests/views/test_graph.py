"""gradcli graph through the CLI: tree, DOT, Mermaid and JSON, markings, big graphs."""

import re
import shutil
import subprocess

import pytest
from helpers import SPECS, invoke, run_json, spec

ALL_SPECS = sorted(p.name for p in SPECS.glob("*.yaml"))


def nodes_by_id(doc):
    return {n["id"]: n for n in doc["nodes"]}


# --- JSON -----------------------------------------------------------------------------------


def test_json_of_quadratic_is_exactly_its_graph():
    # y = x*x + 3*x: two products of x and their sum
    doc = run_json("graph", spec("quadratic.yaml"))
    assert doc["schema"] == 1
    short = [(n["id"], n["op"], n["kind"], n["shape"], n["dtype"], n["line"]) for n in doc["nodes"]]
    assert short == [
        ("x", "input", "input", [], "float64", 3),
        ("mul#1", "mul", "forward", [], "float64", 5),
        ("const#2", "const", "forward", [], "float64", 5),
        ("mul#3", "mul", "forward", [], "float64", 5),
        ("y", "add", "forward", [], "float64", 5),
    ]
    edges = [(e["from"], e["to"], e["slot"], e["cut"]) for e in doc["edges"]]
    assert edges == [
        ("x", "mul#1", 0, False),
        ("x", "mul#1", 1, False),
        ("const#2", "mul#3", 0, False),
        ("x", "mul#3", 1, False),
        ("mul#1", "y", 0, False),
        ("mul#3", "y", 1, False),
    ]
    assert [n["label"] for n in doc["nodes"]] == ["x", "x * x", "3", "3 * x", "y"]
    assert doc["outputs"] == ["y"] and doc["wrt"] == ["x"]
    assert "gradients" not in doc


@pytest.mark.parametrize("name", ALL_SPECS)
@pytest.mark.parametrize("grad", [False, True])
def test_json_is_a_consistent_graph_for_every_spec(name, grad):
    doc = run_json("graph", spec(name), *(["--grad"] if grad else []))
    ids = [n["id"] for n in doc["nodes"]]
    assert len(ids) == len(set(ids))
    position = {i: k for k, i in enumerate(ids)}
    for n in doc["nodes"]:
        assert set(n) >= {"id", "op", "shape", "dtype", "line", "kind"}
        assert n["kind"] in ("input", "forward", "gradient")
        assert (n["kind"] == "input") == (n["op"] == "input")
    for e in doc["edges"]:
        assert position[e["from"]] < position[e["to"]]  # topological order
        assert e["cut"] == (e["reason"] is not None)
    assert set(doc["outputs"]) <= set(ids) and set(doc["wrt"]) <= set(ids)
    kinds = {n["kind"] for n in doc["nodes"]}
    if grad:
        assert set(doc["gradients"]) == set(doc["wrt"])
        for g in doc["gradients"].values():
            assert g["status"] in ("connected", "unconnected")
            assert g["node"] is None or g["node"] in ids
    else:
        assert "gradient" not in kinds


def test_json_gradient_nodes_and_results():
    doc = run_json("graph", spec("two_inputs.yaml"), "--grad")
    nodes = nodes_by_id(doc)
    grads = [n for n in doc["nodes"] if n["kind"] == "gradient"]
    assert grads, "the gradient graph is included"
    assert all(n["origin"] in nodes for n in grads)
    # dz/dx = y is the input y itself; dz/dy = x + 2y is a gradient node computing 8
    assert doc["gradients"]["x"] == {
        "node": "y",
        "status": "connected",
        "zero_elements": 0,
        "reason": None,
    }
    gy = nodes[doc["gradients"]["y"]["node"]]
    assert gy["kind"] == "gradient" and gy["label"] == "grad(y)" and gy["op"] == "add"


def test_json_marks_stop_gradient_and_explain_culprit():
    doc = run_json("graph", spec("stop_gradient.yaml"), "--grad")
    nodes = nodes_by_id(doc)
    sg = nodes["stop_gradient#2"]
    assert sg["marks"] == ["stop_gradient"]
    assert sg["causes"] == [{"input": "x", "kind": "stop_gradient"}]
    cut = [e for e in doc["edges"] if e["cut"]]
    assert cut == [
        {"from": "x", "to": "stop_gradient#2", "slot": 0, "cut": True, "reason": "stop_gradient"}
    ]
    assert doc["gradients"]["x"] == {
        "node": None,
        "status": "unconnected",
        "zero_elements": 1,
        "reason": "the only path from x to z goes through stop_gradient in z (line 6)",
    }
    assert nodes["x"]["marks"] == ["trainable", "wrt"]
    assert nodes["z"]["marks"] == ["output"]


def test_json_marks_the_untaken_branch():
    doc = run_json("graph", spec("cond_untaken.yaml"))
    nodes = nodes_by_id(doc)
    assert nodes["z"]["marks"] == ["output", "took_false"]
    assert nodes["mul#4"]["marks"] == ["untaken"]  # x*y is never evaluated
    assert nodes["greater#3"]["marks"] == ["no_gradient"]
    reasons = {(e["from"], e["to"]): e["reason"] for e in doc["edges"]}
    assert reasons[("mul#4", "z")] == "untaken_branch"
    assert reasons[("x", "greater#3")] == "no_gradient"
    assert reasons[("const#2", "z")] is None  # the taken branch


def test_json_marks_constants_integers_unused_and_custom(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "inputs:\n  x: [1.0, 2.0]\n  n: {value: 3, dtype: int32}\n"
        "  c: {value: 2.0, trainable: false}\n  w: 5.0\n"
        "functions:\n  f:\n    params: [v]\n    body: v * v\n    grad: dy * 3\n"
        "graph:\n  y: sum(f(x) * c) + cast(n, dtype='float64')\n"
    )
    doc = run_json("graph", path, "--grad")
    nodes = nodes_by_id(doc)
    assert nodes["n"]["marks"] == ["integer"]
    assert nodes["c"]["marks"] == ["constant"]
    assert "unused" in nodes["w"]["marks"]
    assert nodes["w"]["causes"] == [{"input": "w", "kind": "no_path"}]
    custom = [n for n in doc["nodes"] if n["op"] == "custom"]
    assert len(custom) == 1 and "custom_gradient" in custom[0]["marks"]
    body = [e for e in doc["edges"] if e["to"] == custom[0]["id"] and e["reason"]]
    assert [e["reason"] for e in body] == ["custom_gradient"]
    assert doc["gradients"]["w"]["status"] == "unconnected"


def test_json_of_an_expression_and_wrt_override():
    doc = run_json("graph", "-e", "sin(a) * b", "--at", "a=0", "--at", "b=2", "--wrt", "a")
    assert doc["wrt"] == ["a"] and doc["outputs"] == ["f"]
    assert [n["line"] for n in doc["nodes"]] == [1, 1, 1, 1]


# --- DOT ----------------------------------------------------------------------------------

DOT_NODE = re.compile(r'^  "((?:[^"\\]|\\.)*)" \[(.*)\];$')
DOT_EDGE = re.compile(r'^  "((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)"( \[.*\])?;$')


def parse_dot(text):
    """Nodes {id: attrs text} and edges [(from, to, attrs text)], asserting every line parses."""
    lines = text.splitlines()
    assert lines[0] == "digraph gradcli {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if line.strip() in ("rankdir=TB;", "node [fontsize=10];", "edge [fontsize=9];"):
            continue
        m = DOT_EDGE.match(line)
        if m:
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
            continue
        m = DOT_NODE.match(line)
        assert m, f"not a DOT statement: {line}"
        nodes[m.group(1)] = m.group(2)
    for a, b, _ in edges:
        assert a in nodes and b in nodes
    return nodes, edges


@pytest.mark.parametrize("name", ALL_SPECS)
def test_dot_is_structurally_valid_for_every_spec(name):
    res = invoke("graph", spec(name), "--grad", "--format", "dot")
    assert res.code == 0 and res.stderr == ""
    nodes, edges = parse_dot(res.stdout)
    doc = run_json("graph", spec(name), "--grad")
    assert set(nodes) >= {n["id"] for n in doc["nodes"]}
    cut_edges = [e for e in doc["edges"] if e["cut"]]
    dashed = [e for e in edges if "dashed" in e[2]]
    assert len(dashed) == len(cut_edges)
    for n in doc["nodes"]:
        attrs = nodes[n["id"]]
        assert ("filled" in attrs) == (n["kind"] == "gradient")


def test_dot_styles_and_escaping(tmp_path):
    res = invoke("graph", spec("stop_gradient.yaml"), "--grad", "--format", "dot")
    nodes, edges = parse_dot(res.stdout)
    assert (
        "x",
        "stop_gradient#2",
        ' [style="dashed", color="#dc2626", label="stop_gradient"]',
    ) in (edges)
    assert "! why grad(x) is None" in nodes["stop_gradient#2"]
    assert 'peripheries="2"' in nodes["z"]
    assert "the only path from x to z" in nodes["gradient of x"]
    path = tmp_path / "q.yaml"
    path.write_text('inputs: {x: 1.0}\ngraph:\n  y: where(x > 0, x, 2 * x)  # "quoted" \\\n')
    nodes, _ = parse_dot(invoke("graph", path, "--format", "dot").stdout)
    assert "y" in nodes


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
@pytest.mark.parametrize("name", ALL_SPECS)
def test_dot_renders_with_graphviz_without_warnings(name, tmp_path):
    res = invoke("graph", spec(name), "--grad", "--format", "dot")
    out = subprocess.run(
        ["dot", "-Tsvg"], input=res.stdout, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0
    assert out.stderr == ""
    assert out.stdout.lstrip().startswith("<?xml") and "</svg>" in out.stdout


# --- Mermaid ------------------------------------------------------------------------------

MERMAID_NODE = re.compile(r'^  (n\d+)(\(\["[^"]*"\]\)|\["[^"]*"\])$')
MERMAID_EDGE = re.compile(r"^  (n\d+) (-->|-\. (cut|untaken) \.->) (n\d+)$")


@pytest.mark.parametrize("name", ALL_SPECS)
def test_mermaid_is_a_flowchart_for_every_spec(name):
    res = invoke("graph", spec(name), "--grad", "--format", "mermaid")
    assert res.code == 0
    lines = res.stdout.splitlines()
    assert lines[0] == "flowchart TB"
    declared, classed = set(), set()
    doc = run_json("graph", spec(name), "--grad")
    cuts = 0
    for line in lines[1:]:
        if m := MERMAID_NODE.match(line):
            declared.add(m.group(1))
        elif m := MERMAID_EDGE.match(line):
            assert m.group(1) in declared and m.group(4) in declared
            cuts += m.group(2) != "-->"
        elif line.startswith("  classDef "):
            continue
        else:
            m = re.match(r"^  class ((?:n\d+,)*n\d+) (\w+)$", line)
            assert m, f"not a Mermaid statement: {line}"
            classed.update(m.group(1).split(","))
    assert len(declared) == len(doc["nodes"]) and classed == declared
    assert cuts == sum(e["cut"] for e in doc["edges"])


def test_mermaid_escapes_label_syntax():
    res = invoke("graph", "-e", "where(x > 0, x, 0)", "--at", "x=1", "--format", "mermaid")
    assert "x #62; 0" in res.stdout and "x > 0" not in res.stdout


# --- tree ---------------------------------------------------------------------------------


def test_tree_of_stop_gradient_with_gradients():
    res = invoke("graph", spec("stop_gradient.yaml"), "--grad")
    assert res.code == 0
    assert res.stdout == (
        "z  mul  () float64  = 6  line 6\n"
        "├── stop_gradient(x)  stop_gradient#2  () float64  = 2  ✂ stop_gradient"
        "  ⚠ why grad(x) is None  line 6\n"
        "│   └── ✂ cut: x  input  () float64  = 2  ◆ trainable  → wrt  line 3\n"
        "└── y  input  () float64  = 3  ◆ trainable  → wrt  line 4\n"
        "\n"
        "∇ gradient of z w.r.t. x  None (unconnected)"
        "  ⚠ the only path from x to z goes through stop_gradient in z (line 6)\n"
        "\n"
        "∇ gradient of z w.r.t. y\n"
        "└── stop_gradient(x)  ↑ [stop_gradient#2] shown above\n"
        "\n"
    )


def test_tree_marks_the_cond_branches():
    out = invoke("graph", spec("cond_untaken.yaml")).stdout
    assert "z  cond  () float64  = 0  ⇢ took the false branch  line 7" in out
    assert "⊘ untaken: x * y  mul#4  () float64  ⊘ not evaluated (untaken branch)  line 7" in out
    assert "✓ taken: 0  const#2" in out
    assert "x > 0  greater#3  () bool  = false  ✂ no gradient  line 7" in out


def test_tree_prints_a_shared_sub_graph_once():
    # logits feeds both log_probs and logsumexp(logits): expanded once, referenced after
    out = invoke("graph", spec("mlp.yaml"), "--grad").stdout
    expanded = [line for line in out.splitlines() if re.search(r"─ logits  add  ", line)]
    assert len(expanded) == 1
    assert "logits  ↑ [logits] shown above" in out
    assert out.count("hidden  relu  (8, 16) float64") == 1


def test_tree_grows_with_edges_not_paths(tmp_path):
    # a ladder of 40 diamonds has 2**40 paths; printed once per node it stays small
    lines = ["inputs:", "  x: 0.5", "graph:", "  a0: x"]
    for i in range(1, 41):
        lines.append(f"  a{i}: sin(a{i - 1}) + cos(a{i - 1})")
    path = tmp_path / "ladder.yaml"
    path.write_text("\n".join(lines) + "\n")
    res = invoke("graph", path, "--grad")
    assert res.code == 0
    assert len(res.stdout.splitlines()) < 1000


def test_tree_marks_integer_and_constant_inputs(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "inputs:\n  x: 2.0\n  n: {value: 3, dtype: int32}\n  c: {value: 1.5, trainable: false}\n"
        "graph:\n  y: x * c + cast(n, dtype='float64')\n"
    )
    out = invoke("graph", path).stdout
    assert "n  input  () int32  = 3  # integer  line 3" in out
    assert "c  input  () float64  = 1.5  ◇ constant  line 4" in out
    assert "x  input  () float64  = 2  ◆ trainable  → wrt  line 2" in out


def test_tree_reports_partly_zero_gradients():
    out = invoke("graph", spec("mask.yaml"), "--grad").stdout
    assert (
        "∇ gradient of loss w.r.t. x  20 of 25 elements zero  ⚠ 20 of 25 elements are zero "
        "because masked_x multiplies x by mask, which is zero there"
    ) in out
    assert "masked_x  mul  (5, 5) float64  = min -0.218792, max 1.04251  ⚠ why grad(x) is " in out


def test_tree_lists_unused_inputs():
    out = invoke("graph", spec("unused_input.yaml")).stdout
    assert out.rstrip().endswith("not used by the outputs: w")


# --- a 100,000-node chain -----------------------------------------------------------------

CHAIN = 100_000


def write_chain(directory, length):
    """a0 = sin(x), a_k = sin(a_(k-1)): length + 1 nodes, length levels deep."""
    lines = ["inputs:", "  x: 0.5", "graph:", "  a0: sin(x)"]
    lines += [f"  a{k}: sin(a{k - 1})" for k in range(1, length)]
    path = directory / "chain.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    return write_chain(tmp_path_factory.mktemp("chain"), CHAIN)


@pytest.mark.slow
def test_chain_tree_prints_every_node_once_in_bounded_width(chain):
    res = invoke("graph", chain)
    assert res.code == 0, res.stderr
    lines = res.stdout.splitlines()
    for k in (0, CHAIN // 2, CHAIN - 1):
        assert sum(f"a{k}  sin  () float64" in line for line in lines) == 1
    assert max(len(line) for line in lines) < 200  # deep levels continue as new sections
    assert len(lines) < 2 * CHAIN


@pytest.mark.slow
def test_chain_json_with_gradients(tmp_path):
    # 20,000 levels are far past any recursion limit; the 100,000-level tree test above and
    # the core's chain test cover the full length at a fraction of this command's cost.
    length = 20_000
    doc = run_json("graph", write_chain(tmp_path, length), "--grad")
    kinds = [n["kind"] for n in doc["nodes"]]
    assert kinds.count("forward") == length and kinds.count("input") == 1
    assert kinds.count("gradient") >= length  # one cos and one product per level at least
    assert doc["gradients"]["x"]["status"] == "connected"


def test_tree_falls_back_to_ascii_when_the_output_cannot_encode_symbols(tmp_path):
    import os
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "ascii", "NO_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "gradcli", "graph", spec("stop_gradient.yaml"), "--grad"],
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("ascii")  # every byte is ASCII
    assert "`-- x cut: x  input  () float64  = 2  * trainable  -> wrt  line 3" in text
    assert "! why grad(x) is None" in text
