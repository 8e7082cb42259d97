"""gradcli explain through the CLI: every cause kind, status, JSON field and exit code.

Expected values are derived by hand (and were confirmed with TensorFlow 2.21 in float64:
which gradients are None, and which elements are zero); spec lines are found in the spec
text itself, never taken from gradcli's output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import ROOT, invoke, run_json, spec
from hypothesis import given
from hypothesis import strategies as st

PAIR_FIELDS = {
    "output",
    "input",
    "status",
    "elements",
    "zero_elements",
    "reason",
    "causes",
    "paths",
}
CAUSE_FIELDS = {"kind", "node", "line", "detail", "op", "elements", "path", "location"}


def line_of(path: str, prefix: str) -> int:
    """The 1-based line of a spec file that starts with prefix (found in the file's text)."""
    for n, text in enumerate(Path(path).read_text().splitlines(), start=1):
        if text.startswith(prefix):
            return n
    raise AssertionError(f"{prefix!r} not in {path}")


def explain(*args, code=1, input=None) -> dict:
    return run_json("explain", *args, code=code, input=input)


def pairs_by_input(doc: dict) -> dict:
    return {p["input"]: p for p in doc["pairs"]}


def one(*args, code=1, input=None) -> dict:
    """The only pair of an explanation."""
    doc = explain(*args, code=code, input=input)
    assert len(doc["pairs"]) == 1
    return doc["pairs"][0]


def kinds(pair: dict) -> list[str]:
    return [c["kind"] for c in pair["causes"]]


# --- the examples, with the specs shipped in specs/ ---------------------------------
def test_stop_gradient_example():
    path = spec("stop_gradient.yaml")
    doc = explain(path)
    assert doc["schema"] == 1
    x, y = doc["pairs"]
    assert (x["output"], x["input"], x["status"]) == ("z", "x", "unconnected")
    assert (x["elements"], x["zero_elements"]) == (1, 1)
    [cause] = x["causes"]
    assert cause["kind"] == "stop_gradient"
    assert (cause["node"], cause["line"], cause["op"]) == (
        "z",
        line_of(path, "  z:"),
        "stop_gradient",
    )
    assert cause["elements"] is None
    assert x["paths"] == [["x", "z"]] and cause["path"] == 0
    assert (
        x["reason"]
        == f"the only path from x to z goes through stop_gradient in z (line {cause['line']})"
    )
    assert (y["input"], y["status"], y["zero_elements"], y["causes"], y["paths"]) == (
        "y",
        "connected",
        0,
        [],
        [],
    )
    assert y["reason"] is None


def test_untaken_branch_example():
    path = spec("cond_untaken.yaml")
    doc = pairs_by_input(explain(path))
    for name in ("x", "y"):
        pair = doc[name]
        assert pair["status"] == "unconnected"
        [cause] = pair["causes"]
        assert cause["kind"] == "untaken_branch"
        assert (cause["node"], cause["line"], cause["op"]) == ("z", line_of(path, "  z:"), "cond")
        assert "x > 0 is false" in cause["detail"] and "x = -1" in cause["detail"]
        assert "false branch" in cause["detail"]
        assert pair["paths"] == [[name, "z"]]


def test_mask_example():
    path = spec("mask.yaml")
    pair = one(path)
    assert (pair["output"], pair["input"], pair["status"]) == ("loss", "x", "partially_zero")
    # the mask has 5 ones in 25 elements, and d loss / dx = mask
    assert (pair["elements"], pair["zero_elements"]) == (25, 20)
    [cause] = pair["causes"]
    assert cause["kind"] == "mask" and cause["op"] == "mul"
    assert (cause["node"], cause["line"], cause["elements"]) == (
        "masked_x",
        line_of(path, "  masked_x:"),
        20,
    )
    assert cause["detail"] == "masked_x multiplies x by mask, which is zero at 20 of 25 elements"
    assert pair["paths"] == [["x", "masked_x", "loss"]]
    assert pair["reason"] == (
        "20 of 25 elements are zero because masked_x multiplies x by mask, which is zero there"
    )


def test_unused_input_example():
    path = spec("unused_input.yaml")
    doc = pairs_by_input(explain(path))
    w, b = doc["w"], doc["b"]
    assert (w["status"], w["elements"], w["zero_elements"]) == ("unconnected", 4, 4)
    [cause] = w["causes"]
    assert (cause["kind"], cause["node"], cause["line"]) == ("no_path", "w", line_of(path, "  w:"))
    assert cause["detail"] == "loss depends only on x, b"
    assert w["paths"] == [] and cause["path"] is None
    assert b["status"] == "connected"


def test_round_example():
    path = spec("round.yaml")
    doc = pairs_by_input(explain(path))
    x = doc["x"]
    assert x["status"] == "unconnected"
    [cause] = x["causes"]
    assert (cause["kind"], cause["node"], cause["line"]) == (
        "non_differentiable",
        "r",
        line_of(path, "  r:"),
    )
    assert cause["op"] == "round" and "round" in cause["detail"]
    assert x["paths"] == [["x", "r", "z"]]
    assert doc["y"]["status"] == "connected"


def test_integer_input_example():
    path = spec("integer_input.yaml")
    doc = pairs_by_input(explain(path))
    n = doc["n"]
    assert n["status"] == "unconnected"
    [cause] = n["causes"]
    assert (cause["kind"], cause["node"], cause["line"]) == ("integer", "n", line_of(path, "  n:"))
    assert "int32" in cause["detail"]
    assert doc["x"]["status"] == "connected"


def test_dead_relu_example():
    path = spec("dead_relu.yaml")
    pair = one(path)
    assert (pair["status"], pair["elements"], pair["zero_elements"]) == ("zero", 3, 3)
    [cause] = pair["causes"]
    assert (cause["kind"], cause["node"], cause["line"], cause["op"]) == (
        "inactive",
        "h",
        line_of(path, "  h:"),
        "relu",
    )
    assert cause["elements"] == 3
    assert pair["paths"] == [["x", "h", "loss"]]


def test_two_culprits_example():
    path = spec("two_cuts.yaml")
    pair = one(path)
    assert pair["status"] == "unconnected"
    got = [(c["kind"], c["node"], c["line"]) for c in pair["causes"]]
    assert got == [
        ("stop_gradient", "a", line_of(path, "  a:")),
        ("non_differentiable", "b", line_of(path, "  b:")),
    ]
    assert pair["paths"] == [["x", "a", "loss"], ["x", "b", "loss"]]
    assert [c["path"] for c in pair["causes"]] == [0, 1]
    assert "every path from x to loss is cut" in pair["reason"]


def test_zero_grad_ys_example():
    path = spec("zero_grad_ys.yaml")
    pair = one(path)
    # dx = 2 * grad_ys = [2, 0, 0]
    assert (pair["status"], pair["elements"], pair["zero_elements"]) == ("partially_zero", 3, 2)
    [cause] = pair["causes"]
    assert (cause["kind"], cause["node"], cause["elements"]) == ("zero_upstream", "y", 2)
    assert cause["line"] == line_of(path, "grad_ys:")
    assert cause["op"] is None


# --- every cause kind, in JSON, through -e ----------------------------------------------
# (expression, --at values, --wrt, expected status, expected kinds, zero elements)
KINDS = [
    ("stop_gradient(x) * 2", ["x=1"], "x", "unconnected", ["stop_gradient"], 1),
    ("round(x) * 2", ["x=1.4"], "x", "unconnected", ["non_differentiable"], 1),
    ("floor(x)", ["x=1.4"], "x", "unconnected", ["non_differentiable"], 1),
    ("ceil(x)", ["x=1.4"], "x", "unconnected", ["non_differentiable"], 1),
    ("argmax(x)", ["x=[1, 2]"], "x", "unconnected", ["non_differentiable"], 2),
    ("argmin(x)", ["x=[1, 2]"], "x", "unconnected", ["non_differentiable"], 2),
    ("where(x > 0, 1.0, 2.0)", ["x=1"], "x", "unconnected", ["non_differentiable"], 1),
    ("cast(x, 'int32') * 2", ["x=1.5"], "x", "unconnected", ["integer"], 1),
    ("cast(x, 'bool')", ["x=1.5"], "x", "unconnected", ["integer"], 1),
    ("cond(x > 0, x * y, 0.0)", ["x=-1", "y=3"], "y", "unconnected", ["untaken_branch"], 1),
    ("sum(x * m)", ["x=[1, 2, 3]", "m=[0, 1, 0]"], "x", "partially_zero", ["mask"], 2),
    ("sum(relu(x))", ["x=[-1, 2, 0]"], "x", "partially_zero", ["inactive"], 2),
    ("sum(abs(x))", ["x=[0, 2]"], "x", "partially_zero", ["inactive"], 1),
    ("sum(where(x > 0, x, 0.0))", ["x=[-1, 2]"], "x", "partially_zero", ["inactive"], 1),
    ("sum(maximum(x, 1.0))", ["x=[0, 2]"], "x", "partially_zero", ["inactive"], 1),
    ("sum(minimum(x, 1.0))", ["x=[0, 2]"], "x", "partially_zero", ["inactive"], 1),
    ("sum(clip(x, -1, 1))", ["x=[3, 0, -3]"], "x", "partially_zero", ["inactive"], 2),
    ("max(x)", ["x=[1, 3, 2]"], "x", "partially_zero", ["inactive"], 2),
    ("x * y - y * x", ["x=2", "y=3"], "x", "zero", ["cancellation"], 1),
    ("sum(sign(x))", ["x=[1, -2]"], "x", "zero", ["zero_derivative"], 2),
    ("sum(square(x))", ["x=[0, 1]"], "x", "partially_zero", ["zero_derivative"], 1),
    ("sum(x[0:2])", ["x=[1, 2, 3]"], "x", "partially_zero", ["unselected"], 1),
    # 1e-200 * 1e-200 = 0 in float64 although both factors are nonzero
    ("x * 1e-200 * 1e-200", ["x=1"], "x", "zero", ["underflow"], 1),
]


@pytest.mark.parametrize(("expr", "at", "wrt", "status", "want", "zeros"), KINDS)
def test_cause_kind(expr, at, wrt, status, want, zeros):
    args = ["-e", expr, "--wrt", wrt]
    for a in at:
        args += ["--at", a]
    pair = one(*args)
    assert pair["status"] == status
    assert kinds(pair) == want
    assert pair["zero_elements"] == zeros
    for cause in pair["causes"]:
        assert set(cause) == CAUSE_FIELDS
        assert cause["node"] == "f"
        assert cause["line"] == 1
        assert cause["detail"]
    assert pair["reason"]


def test_every_kind_is_covered():
    # no_path and zero_upstream need a spec: test_unused_input_example, test_zero_grad_ys_example
    covered = {k for row in KINDS for k in row[4]} | {"no_path", "zero_upstream"}
    documented = {
        "no_path", "stop_gradient", "non_differentiable", "untaken_branch", "integer",
        "mask", "inactive", "zero_upstream", "cancellation", "zero_derivative",
        "unselected", "underflow",
    }  # fmt: skip
    assert documented <= covered


def test_integer_and_bool_inputs_are_unconnected_with_cause_integer():
    text = (
        "inputs:\n  n: {value: 3, dtype: int64}\n  b: [true, false]\n"
        "graph:\n  z: n * 2 + sum(cast(b, 'float64'))\n"
    )
    doc = pairs_by_input(run_json("explain", "-", "--wrt", "n,b", input=text, code=1))
    for name, dtype, line in (("n", "int64", 2), ("b", "bool", 3)):
        [cause] = doc[name]["causes"]
        assert doc[name]["status"] == "unconnected"
        assert (cause["kind"], cause["node"], cause["line"]) == ("integer", name, line)
        assert dtype in cause["detail"]
        assert doc[name]["paths"] == [[name, "z"]]


def test_comparison_detail_names_the_op():
    pair = one("-e", "cast(x > 0, 'float64') * y", "--at", "x=1", "--at", "y=2", "--wrt", "x")
    [cause] = pair["causes"]
    assert cause["kind"] == "non_differentiable" and cause["op"] == "greater"
    assert "x > 0" in cause["detail"] and "comparison" in cause["detail"]


def test_custom_gradient_null_is_non_differentiable():
    text = (
        "inputs:\n  a: 2.0\n  b: 3.0\n"
        "functions:\n  f:\n    params: [u, v]\n    body: u * v\n    grad: [dy * v, null]\n"
        "graph:\n  z: f(a, b)\n"
    )
    res = invoke("explain", "-", "--format", "json", input=text)
    assert res.code == 1
    doc = pairs_by_input(json.loads(res.stdout))
    assert doc["a"]["status"] == "connected"
    [cause] = doc["b"]["causes"]
    assert (cause["kind"], cause["node"], cause["line"]) == ("non_differentiable", "z", 10)
    assert "custom gradient of f" in cause["detail"] and "v" in cause["detail"]


# --- statuses, JSON fields, ordering --------------------------------------------------------
def test_all_four_statuses_and_their_counts():
    text = (
        "inputs:\n"
        "  a: [1.0, 2.0]\n"  # connected: d/da = [1, 1]
        "  b: [-1.0, 2.0]\n"  # partially zero: relu' = [0, 1]
        "  c: [-1.0, -2.0]\n"  # zero: relu' = [0, 0]
        "  d: [1.0, 2.0]\n"  # unconnected: stop_gradient
        "graph:\n"
        "  z: sum(a) + sum(relu(b)) + sum(relu(c)) + sum(stop_gradient(d))\n"
    )
    doc = run_json("explain", "-", input=text, code=1)
    assert doc["schema"] == 1 and set(doc) == {"schema", "pairs"}
    got = {p["input"]: (p["status"], p["elements"], p["zero_elements"]) for p in doc["pairs"]}
    assert got == {
        "a": ("connected", 2, 0),
        "b": ("partially_zero", 2, 1),
        "c": ("zero", 2, 2),
        "d": ("unconnected", 2, 2),
    }
    assert [p["input"] for p in doc["pairs"]] == ["a", "b", "c", "d"]  # wrt order
    for pair in doc["pairs"]:
        assert set(pair) == PAIR_FIELDS
        assert pair["output"] == "z"
        for cause in pair["causes"]:
            assert set(cause) == CAUSE_FIELDS
            assert cause["location"].startswith("<stdin>:7:")
            if cause["path"] is not None:
                assert pair["paths"][cause["path"]][0] == pair["input"]
                assert pair["paths"][cause["path"]][-1] == "z"
                assert cause["node"] in pair["paths"][cause["path"]]


def test_numeric_causes_ordered_by_elements_and_attributed_to_the_first_zeroing_node():
    # x = [-1, 2, 3, 4, -5], m = [1, 0, 0, 1, 0]: going back from the output the product
    # with m zeroes elements 1, 2 and 4 first (mask, 3 elements); relu then zeroes
    # element 0 (inactive, 1 element); element 4 is counted once, for the mask.
    pair = one(
        "-e", "sum(relu(x) * m)", "--at", "x=[-1, 2, 3, 4, -5]", "--at", "m=[1, 0, 0, 1, 0]",
        "--wrt", "x",
    )  # fmt: skip
    assert (pair["status"], pair["elements"], pair["zero_elements"]) == ("partially_zero", 5, 4)
    assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [("mask", 3), ("inactive", 1)]
    assert pair["reason"].startswith("4 of 5 elements are zero: 3 because ")


def test_decisive_cut_comes_first():
    # floor(x) is the decisive cut of its path; on the other path round(x) then
    # stop_gradient cut it twice, and neither alone reconnects it.
    pair = one("-e", "stop_gradient(round(x)) + floor(x)", "--at", "x=1.5")
    assert pair["status"] == "unconnected"
    assert [(c["kind"], c["op"]) for c in pair["causes"]] == [
        ("non_differentiable", "floor"),
        ("non_differentiable", "round"),
        ("stop_gradient", "stop_gradient"),
    ]


def test_zeros_with_a_cut_path_lists_both():
    # d/dv of cast(v > 0) * v is [1, 0] at v = [1, -1]; the comparison path is cut
    pair = one("-e", "sum(cast(v > 0, 'float64') * v)", "--at", "v=[1, -1]")
    assert (pair["status"], pair["zero_elements"]) == ("partially_zero", 1)
    assert kinds(pair) == ["mask", "non_differentiable"]
    assert pair["causes"][0]["elements"] == 1 and pair["causes"][1]["elements"] is None


def test_multiple_outputs_give_one_pair_per_output_and_input():
    text = (
        "inputs:\n  x: 2.0\n  y: 3.0\n"
        "graph:\n  a: x * y\n  b: stop_gradient(x) + y\n"
        "outputs: [a, b]\n"
    )
    doc = run_json("explain", "-", input=text, code=1)
    got = [(p["output"], p["input"], p["status"]) for p in doc["pairs"]]
    assert got == [
        ("a", "x", "connected"),
        ("a", "y", "connected"),
        ("b", "x", "unconnected"),
        ("b", "y", "connected"),
    ]


def test_output_option_explains_one_entry():
    path = spec("round.yaml")
    doc = explain(path, "--output", "r")
    got = {p["input"]: (p["output"], p["status"], kinds(p)) for p in doc["pairs"]}
    assert got == {
        "x": ("r", "unconnected", ["non_differentiable"]),
        "y": ("r", "unconnected", ["no_path"]),
    }
    assert pairs_by_input(doc)["y"]["causes"][0]["detail"] == "r depends only on x"


def test_output_option_rejects_an_unknown_name():
    res = invoke("explain", spec("round.yaml"), "--output", "zz")
    assert res.code == 2 and res.stdout == ""
    assert res.stderr.startswith("gradcli: error: --output names 'zz'")
    assert len(res.stderr.splitlines()) == 1
    res = invoke("explain", spec("round.yaml"), "--output", "x")  # an input, not an entry
    assert res.code == 2


# --- exit status, quiet, input forms ----------------------------------------------------------
def test_exit_status_zero_when_every_gradient_is_connected_and_nonzero():
    res = invoke("explain", spec("two_inputs.yaml"), "--format", "json")
    assert res.code == 0
    assert {p["status"] for p in json.loads(res.stdout)["pairs"]} == {"connected"}
    res = invoke("explain", spec("two_inputs.yaml"))
    assert res.code == 0
    assert res.stdout == "connected, nonzero everywhere: dz/dx, dz/dy\n"


@pytest.mark.parametrize(
    ("name", "code"),
    [("quadratic.yaml", 0), ("stop_gradient.yaml", 1), ("mask.yaml", 1), ("dead_relu.yaml", 1)],
)
def test_quiet_prints_nothing_and_sets_the_status(name, code):
    for flag in ("-q", "--quiet"):
        res = invoke("explain", spec(name), flag)
        assert (res.code, res.stdout, res.stderr) == (code, "", "")


def test_wrt_restricts_the_pairs_and_the_status():
    res = invoke("explain", spec("stop_gradient.yaml"), "--wrt", "y", "-q")
    assert res.code == 0
    res = invoke("explain", spec("stop_gradient.yaml"), "--wrt", "x", "-q")
    assert res.code == 1


def test_at_changes_the_answer():
    # cond_untaken at x = 2 takes the true branch: dz/dx = y = 3, dz/dy = x = 2
    res = invoke("explain", spec("cond_untaken.yaml"), "--at", "x=2", "-q")
    assert res.code == 0


def test_bad_input_is_one_line_exit_2():
    res = invoke("explain", "-", input="inputs:\n  x: 1.0\ngraph:\n  z: x +* 2\n")
    assert res.code == 2 and res.stdout == ""
    assert res.stderr.startswith("gradcli: error: <stdin>:4:") and len(res.stderr.splitlines()) == 1
    res = invoke("explain", "missing.yaml")
    assert res.code == 2
    res = invoke("explain", spec("mask.yaml"), "--format", "yaml")
    assert res.code == 2
    res = invoke("explain", "-e", "x +", "--at", "x=1")
    assert res.code == 2 and "Traceback" not in res.stderr


def test_stdin_and_expression_give_the_same_answer_as_a_file():
    path = spec("stop_gradient.yaml")
    from_file = explain(path)
    from_stdin = run_json("explain", "-", input=Path(path).read_text(), code=1)
    for a, b in zip(from_file["pairs"], from_stdin["pairs"]):
        for cause_a, cause_b in zip(a["causes"], b["causes"]):
            cause_a.pop("location"), cause_b.pop("location")
        assert a == b
    pair = one("-e", "stop_gradient(x) * y", "--at", "x=2", "--at", "y=3", "--wrt", "x")
    assert kinds(pair) == ["stop_gradient"] and pair["causes"][0]["location"] == "<expr>:1:1"


# --- table output -----------------------------------------------------------------------------
def table(*args) -> str:
    res = invoke("explain", *args, env={"COLUMNS": "80"})
    assert res.code == 1, res.stderr
    return res.stdout


def test_table_snapshot_stop_gradient():
    assert table(spec("stop_gradient.yaml")) == (
        "╭─ dz/dx: unconnected (None) ──────────────────────────────────────────────────╮\n"
        "│ the only path from x to z goes through stop_gradient in z (line 6)           │\n"
        "│                                                                              │\n"
        "│ x                                                                            │\n"
        "│ └── z  ✗ stop_gradient                                                       │\n"
        "│     line 6: z: stop_gradient(x) * y                                          │\n"
        "│                                                                              │\n"
        "│ ✗ stop_gradient at z, line 6: stop_gradient(x) passes no gradient to x       │\n"
        "╰──────────────────────────────────────────────────────────────────────────────╯\n"
        "connected, nonzero everywhere: dz/dy\n"
    )


def test_table_snapshot_mask():
    assert table(spec("mask.yaml")) == (
        "╭─ dloss/dx: partially zero (20 of 25 elements) ───────────────────────────────╮\n"
        "│ 20 of 25 elements are zero because masked_x multiplies x by mask, which is   │\n"
        "│ zero there                                                                   │\n"
        "│                                                                              │\n"
        "│ x                                                                            │\n"
        "│ └── masked_x  ✗ mask                                                         │\n"
        "│     line 13: masked_x: x * mask                                              │\n"
        "│     └── loss                                                                 │\n"
        "│                                                                              │\n"
        "│ ✗ mask at masked_x, line 13 (20 elements): masked_x multiplies x by mask,    │\n"
        "│ which is zero at 20 of 25 elements                                           │\n"
        "╰──────────────────────────────────────────────────────────────────────────────╯\n"
    )


def test_table_two_culprits_marks_both_branches():
    out = table(spec("two_cuts.yaml"))
    assert "├── a  ✗ stop_gradient" in out and "└── b  ✗ non_differentiable" in out
    assert "line 6: a: stop_gradient(x)" in out and "line 7: b: round(x)" in out
    assert "✗ stop_gradient at a, line 6" in out
    assert "✗ non_differentiable at b, line 7" in out


def test_table_marks_an_integer_input_and_a_no_path_input():
    out = table(spec("integer_input.yaml"))
    assert "dz/dn: unconnected (None)" in out and "n  ✗ integer" in out
    assert "connected, nonzero everywhere: dz/dx" in out
    out = table(spec("unused_input.yaml"))
    assert "dloss/dw: unconnected (None)" in out
    assert "loss does not use w at all: loss depends only on x, b" in out
    assert "✗ no_path at w, line 5" in out


def test_table_without_gradients():
    res = invoke(
        "explain", "-", input="inputs:\n  n: {value: 1, dtype: int32}\ngraph:\n  z: n * 2\n"
    )
    assert res.code == 0
    assert "no gradients requested" in res.stdout


# --- eval shows the same analysis ---------------------------------------------------------------
def test_eval_json_carries_reason_and_causes():
    res = invoke("eval", spec("stop_gradient.yaml"), "--format", "json")
    assert res.code == 0  # eval never gates
    grads = json.loads(res.stdout)["gradients"]
    x, y = grads["x"], grads["y"]
    assert x["value"] is None and x["status"] == "unconnected"
    assert x["reason"] == "the only path from x to z goes through stop_gradient in z (line 6)"
    [cause] = x["causes"]
    assert set(cause) == CAUSE_FIELDS - {"path"}
    assert (cause["kind"], cause["node"], cause["line"]) == ("stop_gradient", "z", 6)
    assert y["value"] == 2.0 and y["reason"] is None and y["causes"] == []


def test_eval_json_explains_partly_zero_gradients():
    res = invoke("eval", spec("mask.yaml"), "--format", "json")
    assert res.code == 0
    x = json.loads(res.stdout)["gradients"]["x"]
    assert x["status"] == "connected"
    assert sum(v == 0 for row in x["value"] for v in row) == 20
    assert [(c["kind"], c["elements"]) for c in x["causes"]] == [("mask", 20)]
    assert x["reason"].startswith("20 of 25 elements are zero")


def test_eval_table_shows_the_reason():
    res = invoke("eval", spec("stop_gradient.yaml"), "--format", "table", env={"COLUMNS": "200"})
    assert res.code == 0
    line = next(ln for ln in res.stdout.splitlines() if ln.strip().startswith("x "))
    assert "None" in line
    assert "unconnected: the only path from x to z goes through stop_gradient in z (line 6)" in line


# --- size ---------------------------------------------------------------------------------------
@pytest.mark.slow
def test_explain_a_100000_node_chain():
    # x{i} = x{i-1} - 1 from x0 = 0: relu at the middle sees a negative value, so d/dx0 is
    # 0 (inactive); the stop_gradient beside it cuts a second path. Derivatives of the
    # other links are 1, so nothing underflows. Deep recursion would overflow the stack.
    n, mid = 100_000, 50_000
    lines = ["inputs:", "  x0: 0.0", "graph:"]
    for i in range(1, n + 1):
        if i == mid:
            lines.append(f"  x{i}: relu(x{i - 1}) + stop_gradient(x{i - 1})")
        else:
            lines.append(f"  x{i}: x{i - 1} - 1")
    res = invoke("explain", "-", "--format", "json", input="\n".join(lines) + "\n")
    assert res.code == 1, res.stderr
    [pair] = json.loads(res.stdout)["pairs"]
    assert (pair["output"], pair["input"], pair["status"]) == (f"x{n}", "x0", "zero")
    got = [(c["kind"], c["node"], c["line"]) for c in pair["causes"]]
    assert got == [("inactive", f"x{mid}", mid + 3), ("stop_gradient", f"x{mid}", mid + 3)]
    assert pair["paths"][0] == [f"x{i}" for i in range(n + 1)]


# --- property: counts and attribution match a hand computation ----------------------------------
@given(
    st.lists(
        st.tuples(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 3.0]), st.sampled_from([0.0, 1.0])),
        min_size=1,
        max_size=12,
    )
)
def test_relu_times_mask_counts_and_attribution(cells):
    x = np.array([c[0] for c in cells])
    m = np.array([c[1] for c in cells])
    grad = (x > 0) * m  # d sum(relu(x) * m) / dx, relu'(0) = 0 as in TensorFlow
    zeros = int(np.count_nonzero(grad == 0))
    # walking back from the output, the product with m is met first: the mask owns every
    # element where m = 0; relu owns the rest of the zeros (m = 1, x <= 0)
    masked = int(np.count_nonzero(m == 0))
    inactive = zeros - masked
    res = invoke(
        "explain", "-e", "sum(relu(x) * m)", "--wrt", "x", "--format", "json",
        "--at", f"x={json.dumps(x.tolist())}", "--at", f"m={json.dumps(m.tolist())}",
    )  # fmt: skip
    assert res.code == (0 if zeros == 0 else 1)
    [pair] = json.loads(res.stdout)["pairs"]
    assert (pair["elements"], pair["zero_elements"]) == (x.size, zeros)
    status = "connected" if zeros == 0 else "zero" if zeros == x.size else "partially_zero"
    assert pair["status"] == status
    got = {c["kind"]: c["elements"] for c in pair["causes"]}
    want = {k: v for k, v in (("mask", masked), ("inactive", inactive)) if v}
    assert got == want
    counts = [c["elements"] for c in pair["causes"]]
    assert counts == sorted(counts, reverse=True)  # most decisive first


def test_cuts_inside_a_custom_body_do_not_count():
    # with grad: given, the body's round and stop_gradient are never differentiated
    text = (
        "inputs:\n  x: 2.0\n"
        "functions:\n  f:\n    params: [v]\n    body: stop_gradient(v) * round(v)\n"
        "    grad: dy * 3\n"
        "graph:\n  y: f(x)\n"
    )
    res = invoke("explain", "-", "--format", "json", input=text)
    assert res.code == 0
    [pair] = json.loads(res.stdout)["pairs"]
    assert pair["status"] == "connected" and pair["causes"] == []
    # a zero custom gradient is named as such, and nothing in the body is blamed
    pair = one("-", input=text.replace("dy * 3", "dy * 0"))
    assert pair["status"] == "zero"
    [cause] = pair["causes"]
    assert (cause["kind"], cause["node"], cause["op"]) == ("zero_derivative", "y", "custom")
    assert "custom gradient of f" in cause["detail"]


# --- specs/README.md says what explain shows for every shipped spec ---------------------------
STATUS_WORDS = re.compile(r"`(connected|partially_zero|zero|unconnected|non_finite)`")
KIND_WORDS = {
    "no_path", "stop_gradient", "non_differentiable", "untaken_branch", "integer", "mask",
    "inactive", "zero_upstream", "cancellation", "zero_derivative", "unselected", "underflow",
    "non_finite",
}  # fmt: skip


def explain_rows() -> dict[str, str]:
    text = (ROOT / "specs" / "README.md").read_text()
    section = text.split("## What `gradcli explain` shows for the examples", 1)[1]
    rows = re.findall(r"^\| \[([\w.]+)\]\([\w.]+\) \| (.*) \|$", section, flags=re.M)
    return dict(rows)


def test_specs_readme_has_an_explain_sentence_for_every_spec():
    shipped = {p.name for p in (ROOT / "specs").glob("*.yaml")}
    assert set(explain_rows()) == shipped


@pytest.mark.parametrize("name", sorted(explain_rows()))
def test_specs_readme_explain_sentence_matches(name):
    row = explain_rows()[name]
    res = invoke("explain", spec(name), "--format", "json")
    doc = json.loads(res.stdout)
    for pair in doc["pairs"]:
        at = row.index(f"d{pair['output']}/d{pair['input']}")
        assert STATUS_WORDS.search(row, at).group(1) == pair["status"], (name, pair["input"])
    said = {w for w in re.findall(r"`(\w+)`", row) if w in KIND_WORDS}
    assert said == {c["kind"] for p in doc["pairs"] for c in p["causes"]}
    assert res.code == (0 if all(p["status"] == "connected" for p in doc["pairs"]) else 1)


def test_eval_names_a_cancellation_between_two_outputs():
    # d(a + b)/dx = 3 - 3 = 0, the two terms meeting at x from different entries
    text = (
        "inputs:\n  x: 2.0\n  y: 1.0\n"
        "graph:\n  a: x * 3\n  b: -3 * x + stop_gradient(y)\noutputs: [a, b]\n"
    )
    res = invoke("eval", "-", "--format", "json", input=text)
    assert res.code == 0
    grads = json.loads(res.stdout)["gradients"]
    assert grads["x"]["value"] == 0.0 and grads["x"]["status"] == "connected"
    [cause] = grads["x"]["causes"]
    assert cause["kind"] == "cancellation" and cause["elements"] == 1
    assert "x * 3 in a (line 5)" in cause["detail"] and "-3 * x in b (line 6)" in cause["detail"]
    assert cause["detail"].endswith("(3 + -3 = 0)")
    assert grads["y"]["causes"][0]["kind"] == "stop_gradient"
    assert grads["y"]["reason"] == (
        "the only path from y to the outputs goes through stop_gradient in b (line 6)"
    )


def test_a_cond_inside_an_untaken_branch_is_not_evaluated_and_not_blamed():
    # the inner cond is never evaluated (x > 0 takes the constant branch): the outer
    # cond's untaken false branch is the one cause, and nothing crashes
    pair = one("-e", "cond(x > 0, 1.0, cond(y > 0, y, 2 * y))", "--at", "x=1", "--at", "y=1",
               "--wrt", "y")  # fmt: skip
    assert pair["status"] == "unconnected"
    [cause] = pair["causes"]
    assert cause["kind"] == "untaken_branch"
    assert "x > 0 is true" in cause["detail"] and "the false branch" in cause["detail"]


def test_an_unevaluated_cond_leaves_the_untaken_branch_as_the_cause():
    # m feeds a cond that is never evaluated (x > 0 takes x); the outer cond's result then
    # only feeds a where's predicate. The outer cond's untaken branch is the first cut.
    pair = one(
        "-e", "where(cond(x > 0, x, cond(y > 0, 0.0, m)) > 0, y, 2*y)",
        "--at", "x=1", "--at", "y=1", "--at", "m=1", "--wrt", "m",
    )  # fmt: skip
    assert pair["status"] == "unconnected"
    assert kinds(pair) == ["untaken_branch"]
    assert "x > 0 is true" in pair["causes"][0]["detail"]


@pytest.mark.parametrize("seed", range(3))
def test_every_unconnected_or_zero_pair_has_a_cause(seed):
    # random graphs mixing cuts, branches and kinks; eval's gradient is the reference
    import random

    rng = random.Random(seed)
    unary = ["relu", "abs", "sign", "round", "stop_gradient", "square", "sin", "tanh"]

    def gen(d):
        r = rng.random()
        if d == 0 or r < 0.25:
            return rng.choice(["x", "y", "z", "0.0", "2.0"])
        if r < 0.45:
            return f"{rng.choice(unary)}({gen(d - 1)})"
        if r < 0.7:
            return f"({gen(d - 1)} {rng.choice('+-*')} {gen(d - 1)})"
        if r < 0.8:
            return f"maximum({gen(d - 1)}, {gen(d - 1)})"
        if r < 0.9:
            return f"where({gen(d - 1)} > 0, {gen(d - 1)}, {gen(d - 1)})"
        # cond's branches need one shape: every leaf is () or (3,)
        a, b = gen(d - 1), gen(d - 1)
        return f"cond(sum({gen(d - 1)}) > 0, broadcast_to({a}, [3]), broadcast_to({b}, [3]))"

    at = ["--at", "x=[-1, 0, 2]", "--at", "y=[0.5, -2, 0]", "--at", "z=1.5"]
    checked = 0
    for _ in range(25):
        expr = f"sum({gen(4)})"
        ev = invoke("eval", "-e", expr, *at, "--format", "json", "--wrt", "x,y,z")
        if ev.code == 2:  # a name the expression does not use
            continue
        ex = invoke("explain", "-e", expr, *at, "--format", "json", "--wrt", "x,y,z")
        assert ex.code in (0, 1), (expr, ex.stderr)
        grads = json.loads(ev.stdout)["gradients"]
        for pair in json.loads(ex.stdout)["pairs"]:
            value = grads[pair["input"]]["value"]
            if value is None:
                assert pair["status"] == "unconnected" and pair["causes"], expr
                continue
            zeros = int(np.count_nonzero(np.asarray(value) == 0))
            assert pair["zero_elements"] == zeros, expr
            explained = sum(c["elements"] or 0 for c in pair["causes"])
            assert (explained >= zeros) and (zeros > 0 or explained == 0), expr
            checked += 1
    assert checked > 10


def test_unconnected_zero_mode_keeps_the_status_unconnected():
    doc = pairs_by_input(explain(spec("unused_input.yaml"), "--unconnected", "zero"))
    assert doc["w"]["status"] == "unconnected" and kinds(doc["w"]) == ["no_path"]
    assert doc["w"]["zero_elements"] == 4


def test_graph_entry_target_and_float32():
    # d loss / dh = [3, 3] (connected); d loss / dx = 3 * relu'(x) = [3, 0] in float32
    text = (
        "inputs:\n  x: {value: [1.0, -2.0], dtype: float32}\n"
        "graph:\n  h: relu(x)\n  y: sum(h * 3)\nwrt: [h, x]\n"
    )
    doc = pairs_by_input(run_json("explain", "-", input=text, code=1))
    assert (doc["h"]["status"], doc["h"]["zero_elements"]) == ("connected", 0)
    x = doc["x"]
    assert (x["status"], x["zero_elements"], kinds(x)) == ("partially_zero", 1, ["inactive"])
    assert x["causes"][0]["node"] == "h" and x["causes"][0]["line"] == 4


def test_many_causes_on_one_path_share_it_and_the_panel_lists_ten():
    expr = " + ".join(f"{op}(x)" for op in ["stop_gradient", "round", "floor", "ceil"] * 3)
    pair = one("-e", expr, "--at", "x=1.5")
    assert len(pair["causes"]) == 12
    assert pair["paths"] == [["x", "f"]]
    assert [c["path"] for c in pair["causes"]] == [0] * 12
    assert pair["reason"].endswith("; and 9 more")
    out = table("-e", expr, "--at", "x=1.5")
    assert out.count("✗ stop_gradient at f") + out.count("✗ non_differentiable at f") == 10
    assert "… and 2 more causes (--format json lists them all)" in out


def test_a_cut_sandwiched_between_two_others_is_left_out():
    pair = one("-e", "stop_gradient(round(floor(x)))", "--at", "x=1.5")
    assert [c["op"] for c in pair["causes"]] == ["floor", "stop_gradient"]


def test_a_culprit_inside_an_inlined_function_is_located_in_its_body():
    text = (
        "inputs:\n  x: 2.0\n"
        "functions:\n  f:\n    params: [v]\n    body: stop_gradient(v) * 3\n"
        "graph:\n  a: x + 1\n  y: f(a)\n"
    )
    pair = one("-", input=text)
    [cause] = pair["causes"]
    assert (cause["kind"], cause["node"], cause["line"]) == ("stop_gradient", "y", 9)
    assert cause["location"] == "<stdin>:6:11"  # `stop_gradient` in the body, line 6
    assert pair["paths"] == [["x", "a", "y"]]


def test_x_times_x_at_zero_is_one_zero_derivative():
    # d sum(x * x) / dx = 2x = [0, 2]: one cause, not a mask, not one per operand
    pair = one("-e", "sum(x * x)", "--at", "x=[0, 1]")
    assert (pair["status"], pair["zero_elements"]) == ("partially_zero", 1)
    assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [("zero_derivative", 1)]


def test_help_names_every_reason_for_exit_one():
    res = invoke("explain", "--help")
    assert res.code == 0
    text = " ".join(res.stdout.split())
    assert "1 when some gradient is None, (partly) zero or NaN/Inf" in text


def test_an_unconnected_gradient_asked_for_as_zeros_is_not_called_none(tmp_path):
    out = table(spec("unused_input.yaml"), "--unconnected", "zero")
    assert "dloss/dw: unconnected (reported as zeros)" in out and "(None)" not in out
    path = tmp_path / "zeros.py"  # TensorFlow gives 0.0 for z, not None
    path.write_text(
        "import tensorflow as tf\n"
        "x = tf.Variable(1.0)\n"
        "z = tf.Variable(2.0)\n"
        "with tf.GradientTape() as tape:\n"
        "    y = x * 3.0\n"
        "g = tape.gradient(y, [x, z], unconnected_gradients=tf.UnconnectedGradients.ZERO)\n"
    )
    out = table(path)
    assert "dy/dz: unconnected (reported as zeros)" in out and "(None)" not in out


def test_a_running_sum_passes_zeros_only_from_the_outputs_each_element_feeds():
    # y = cumsum(x): x_k feeds y_i for i >= k, so dx_k = sum over i >= k of dy_i. With
    # dy = m = [1, 0, 0], dx = [1, 0, 0]: x_1 and x_2 only feed outputs the mask zeroes,
    # so the cause is the product with m (cumsum's own derivative is 1 on every term)
    at = ["--at", "x=[1, 2, 3]", "--at", "m=[1, 0, 0]", "--wrt", "x"]
    pair = one("-e", "sum(cumsum(x) * m)", *at)
    assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [("mask", 2)]
    # reverse: x_k feeds y_i for i <= k, dx = [1, 1, 1]: nothing is zero
    pair = one("-e", "sum(cumsum(x, reverse=true) * m)", *at, code=0)
    assert pair["status"] == "connected"
    # exclusive: y = [0, x_0, x_0 + x_1], dx = [2, 1, 0]: x_2 feeds no output
    pair = one("-e", "sum(cumsum(x, exclusive=true))", "--at", "x=[1, 2, 3]", "--wrt", "x")
    assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [("unselected", 1)]


def test_an_element_another_consumer_reads_is_not_unselected():
    # f = sum(x[0:2]) + sum(x[1:3] * m), m = [0, 0]: df/dx = [1, 1 + 0, 0]. x_2 is read by
    # x[1:3], whose product with m zeroes it: the cause is the mask; x[0:2] not reading x_2
    # is no reason for its zero (x_1 is nonzero: x[0:2] reads it)
    pair = one(
        "-e", "sum(x[0:2]) + sum(x[1:3] * m)", "--at", "x=[1, 2, 3]", "--at", "m=[0, 0]",
        "--wrt", "x",
    )  # fmt: skip
    assert pair["zero_elements"] == 1
    assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [("mask", 1)]
    # read by no consumer: each slice leaves x_2 out, both are named
    pair = one("-e", "sum(x[0:2]) + sum(x[0:1] * 2)", "--at", "x=[1, 2, 3]", "--wrt", "x")
    assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [("unselected", 1)] * 2


def test_a_convolution_tells_a_zero_factor_from_products_that_cancel():
    # y = conv2d(x, w) with a 1x1 filter over x = [1, -1] (two rows): dL/dw = sum of x times
    # dL/dy = 1 * 1 + (-1) * 1 = 0, two nonzero products that cancel; with x = [0, 0] every
    # product meets a zero of x (a mask)
    expr = "sum(conv2d(x, w, strides=1, padding='VALID'))"
    for x, kind in (("[[[[1]], [[-1]]]]", "cancellation"), ("[[[[0]], [[0]]]]", "mask")):
        pair = one("-e", expr, "--at", f"x={x}", "--at", "w=[[[[2]]]]", "--wrt", "w")
        assert pair["status"] == "zero"
        assert [(c["kind"], c["elements"]) for c in pair["causes"]] == [(kind, 1)]
