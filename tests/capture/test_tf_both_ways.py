"""Every TensorFlow snippet of tests/data/tf_code/ read both ways: `--run` (real TensorFlow
under the capture) must give TensorFlow's own values (tests/data/tf_code_reference.json,
recorded by tools/tf_code_reference.py from plain runs) and the snippet's expected causes;
where the static reader reads the snippet, both ways must name the same status, cause kind
and line for every (call, source) pair.

All eager snippets run in this one process through the capture library (read_run); the TF1
graph-mode ones (tf.compat.v1.disable_eager_execution is process-wide) run together in one
subprocess. Disagreements gradcli still has are listed below as strict xfails, each with the
side (run or static) that is wrong and why.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helpers import worker_documents

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # as the reference snippets ran
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
tf = pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CODE = DATA / "tf_code"
REFERENCE = {c["id"]: c for c in json.loads((DATA / "tf_code_reference.json").read_text())["cases"]}
GRAPH_MODE = ("disable_eager_execution", "disable_v2_behavior")
# the static reader's kinds and the run mode's: the same words both ways
SAME_KIND = {"stop_gradient": "stop_gradient", "untaken_branch": "untaken_branch"}

# the classes of disagreement this harness found, each naming the side that is wrong (or,
# where neither is wrong, the side that cannot tell), with the truth checked in TensorFlow
WALK_NOT_ELEMENTWISE = (
    "the first cause of a partly zero gradient: the run mode names a cause that explains "
    "none of the source's zeros (run wrong). Its walk from the source follows the zeros an "
    "op received to every op upstream that made zeros, element by element only where it "
    "reads the op, and orders the causes nearest the output first; the static reader labels "
    "every element and names the cause that explains the most of the source's zeros"
)
COMPILED = (
    "zeros born in a compiled function (Keras runs this conv as an XLA or grouped-conv "
    "function call): the run mode says unknown beyond its line, the static reader names "
    "the kind, checked in TensorFlow (run-mode gap, neither wrong)"
)
NO_PER_OP = (
    "no per-op gradient graph in the run mode (a gradient an outer tape records, or TF1 "
    "graph mode): it says unknown beyond the line, the static reader names the kind "
    "(run-mode gap, neither wrong)"
)
LOOP_CUT = (
    "a Keras RNN's tf.while_loop (TensorList ops) the run mode does not follow: it names "
    "TensorListFromTensor non_differentiable, which TensorFlow differentiates (run wrong; "
    "the while-loop reading is separate work)"
)
NESTED_NO_PATH_LINE = (
    "no_path's line for a source a nested gradient drops: the run mode names the line "
    "whose inner gradient leaves it out (issue 29's rule: the line that dropped it), the "
    "static reader the source's definition (static wrong)"
)
# (snippet, side) -> its classes. "run": the run mode differs from TensorFlow's recorded
# values or the snippet's expectation; "static": the two ways name different causes
KNOWN: dict[tuple[str, str], str] = {
    # the image's 28 zeros: the max pool's unselected elements (and relu); the dense
    # kernel's zero makes 2 pooled gradients zero, but making it nonzero turns none of
    # the 28 nonzero (TensorFlow run), while the run mode names that MatMul mask first
    ("keras_cnn_fixed", "static"): WALK_NOT_ELEMENTWISE,
    # conv_first.kernel's 6 zeros: 16 to 26 nonzero products vol * dL/db each, summing to 0
    ("keras_layers_3d", "static"): COMPILED,
    # the kernel element [1, 1, 1, 0]: fed at 5 positions, every product meets a zero input
    ("keras_layers_grouped_conv", "static"): COMPILED,
    ("keras_mask_fit", "static"): LOOP_CUT,
    # b's 6 zeros: Masking's where (line 15) zeroes all 6 (4 alone), the loss's mask (line
    # 22) 2 of them; the run mode names the loss's mask first (nearest the output)
    ("keras_mask_merge_layers", "static"): WALK_NOT_ELEMENTWISE,
    ("nested_tapes_fourth_derivative", "static"): NESTED_NO_PATH_LINE,
    # g1: the pool picks 2 of 4 elements (unselected, line 14); g2: MaxPoolGrad is
    # piecewise constant in x (zero_derivative, line 15)
    ("nested_tapes_max_pool_third", "static"): NO_PER_OP,
    ("tf1_graph_losses", "static"): NO_PER_OP,
    # v's zeros v[1], v[3]: overwritten by tensor_scatter_nd_update (line 16); t[1] = 0
    # zeroes t * t's derivative (line 19) on a path that reaches only u and v[0]
    ("tf1_scatter_update", "static"): WALK_NOT_ELEMENTWISE,
}


def _graph_mode(name: str) -> bool:
    return any(word in (CODE / f"{name}.py").read_text() for word in GRAPH_MODE)


EAGER = sorted(n for n in REFERENCE if not _graph_mode(n))
GRAPH = sorted(n for n in REFERENCE if _graph_mode(n))


def run_document(path: Path) -> dict:
    """The JSON document of `explain --run path --seed 0`, read in this process."""
    from gradcli.cli.run_commands import read_run
    from gradcli.views.format import dumps
    from gradcli.views.run_report import document

    program, diagnosis = read_run(str(path), None, (), "all", 0, 60)
    return json.loads(dumps(document(program, diagnosis, with_pairs=True)))


WORKER = """
import json, sys
from pathlib import Path
import tensorflow as tf
from gradcli.cli.run_commands import read_run
from gradcli.views.format import dumps
from gradcli.views.run_report import document
def run_document(path):
    program, diagnosis = read_run(str(path), None, (), "all", 0, 60)
    return json.loads(dumps(document(program, diagnosis, with_pairs=True)))
docs = {}
for name, path in json.loads(sys.argv[1]).items():
    tf.compat.v1.reset_default_graph()
    try:
        docs[name] = run_document(Path(path))
    except BaseException as exc:  # reported by the test of that snippet
        docs[name] = {"failed": f"{type(exc).__name__}: {exc}"}
print("\\x00" + json.dumps(docs))
"""


@cache
def graph_documents() -> dict:
    """The run documents of every graph-mode snippet, made in one subprocess."""
    paths = {n: str(CODE / f"{n}.py") for n in GRAPH}
    return worker_documents(WORKER, paths, 300, cwd=ROOT)


def static_document(path: Path) -> dict | None:
    """The static reader's explain JSON (None when it refuses the snippet)."""
    from helpers import invoke

    result = invoke("explain", path, "--format", "json")
    if result.code == 2:
        # issue 29: a refusal says how to read the file by running it; what is not a refusal
        # is the error TensorFlow itself raises there, at its position
        tf_error = re.search(r":\d+:\d+: [A-Za-z]+(Error|Exception): ", result.stderr)
        assert "--run" in result.stderr or tf_error, result.stderr
        return None
    return json.loads(result.stdout)


def _close(got, expected) -> bool:
    a = np.asarray(got, dtype=np.float64)
    b = np.asarray(expected, dtype=np.float64)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True)


def against_tensorflow(name: str, doc: dict) -> list[str]:
    """How the run document differs from TensorFlow's recorded run of the snippet."""
    case = REFERENCE[name]
    wrong = []
    lines = [c["line"] for c in doc["calls"]]
    if lines != [c["line"] for c in case["calls"]]:
        return [f"call lines {lines} != TensorFlow's {[c['line'] for c in case['calls']]}"]
    for k, (call, ref) in enumerate(zip(doc["calls"], case["calls"])):
        if ref["result"] is None:
            error = call["error"]
            if error is None or not error["message"].startswith(ref["raised"]):
                wrong.append(f"call {k}: TensorFlow raised {ref['raised']!r}, run: {error}")
            continue
        if call["error"] is not None:
            wrong.append(f"call {k}: run raised {call['error']['message']!r}")
            continue
        if len(call["gradients"]) != len(ref["result"]):
            wrong.append(f"call {k}: {len(call['gradients'])} gradients, TF {len(ref['result'])}")
            continue
        for i, (g, r) in enumerate(zip(call["gradients"], ref["result"])):
            if (g["value"] is None) != (r is None):
                wrong.append(f"call {k} #{i}: run {g['value']!r:.60}, TensorFlow {r!r:.60}")
            elif (
                r is not None
                and case["values"] == "exact"
                and "value" in r
                and not _close(g["value"], r["value"])
            ):
                wrong.append(f"call {k} #{i}: run {g['value']} != TensorFlow {r['value']}")
    return wrong


def _run_pair(doc: dict, call: int, source: str, index: int) -> dict | None:
    pairs = [p for p in doc["pairs"] if p["call"] == call]
    named = [p for p in pairs if p["input"] == source]
    if named:
        return named[0]
    if call < len(doc["calls"]) and index < len(doc["calls"][call]["gradients"]):
        name = doc["calls"][call]["gradients"][index]["name"]
        return next((p for p in pairs if p["input"] == name), None)
    return None


def _causes(pair: dict) -> list[tuple[str, int]]:
    return [(c["kind"], c["line"]) for c in pair["causes"]]


def _error_causes(doc: dict, call: int) -> list[tuple[str, int]] | None:
    if call >= len(doc["calls"]) or doc["calls"][call]["error"] is None:
        return None
    return [(c["kind"], c["line"]) for c in doc["calls"][call]["error"]["causes"]]


def against_expectation(name: str, doc: dict) -> list[str]:
    """How the run document differs from the snippet's `# expect:` lines (written from
    TensorFlow's behaviour)."""
    wrong = []
    for e in REFERENCE[name]["expect"]:
        where = f"call {e['call']} {e['source']}"
        raised = _error_causes(doc, e["call"])
        if raised is not None:
            missing = e["cause"] != "connected" and (e["cause"], e.get("line")) not in raised
            if missing and (e.get("line") is not None or e["cause"] not in [k for k, _ in raised]):
                wrong.append(f"{where}: expected {e['cause']} {e.get('line')}, run {raised}")
            continue
        pair = _run_pair(doc, e["call"], e["source"], e["index"])
        if pair is None:
            wrong.append(f"{where}: no such pair in the run")
            continue
        if e["cause"] == "connected":
            if pair["status"] == "unconnected":
                wrong.append(f"{where}: expected connected, run {_causes(pair)}")
            continue
        found = _causes(pair)
        if e.get("line") is None:
            ok = bool(found) and found[0][0] == e["cause"]
        else:
            ok = (e["cause"], e["line"]) in found
        if not ok:
            wrong.append(f"{where}: expected {e['cause']} {e.get('line')}, run {found}")
    return wrong


def against_static(doc: dict, static: dict) -> list[str]:
    """Where the static reader answers: the same status and first cause per pair."""
    wrong = []
    slines = [c["line"] for c in static["calls"]]
    rlines = [c["line"] for c in doc["calls"]]
    if slines != rlines:
        return [f"call lines: static {slines}, run {rlines}"]
    for k, scall in enumerate(static["calls"]):
        if (scall["error"] is None) != (doc["calls"][k]["error"] is None):
            wrong.append(f"call {k}: static error {scall['error']}, run {doc['calls'][k]['error']}")
    by_call: dict[int, list] = {}
    for p in doc["pairs"]:
        by_call.setdefault(p["call"], []).append(p)
    for sp in static["pairs"]:
        run_pairs = by_call.get(sp["call"], [])
        rp = next((p for p in run_pairs if p["input"] == sp["input"]), None)
        if rp is None:
            spairs = [p for p in static["pairs"] if p["call"] == sp["call"]]
            i = spairs.index(sp)
            rp = run_pairs[i] if len(spairs) == len(run_pairs) else None
        where = f"call {sp['call']} {sp['input']}"
        raised = _error_causes(doc, sp["call"])
        if rp is None and raised is not None:  # TensorFlow raised in the call: its causes
            s = _causes(sp)[:1]
            if s and s[0] not in raised:
                wrong.append(f"{where}: static {s[0]}, run's error {raised}")
            continue
        if rp is None:
            wrong.append(f"{where}: no run pair")
            continue
        if (sp["status"] == "unconnected") != (rp["status"] == "unconnected"):
            wrong.append(f"{where}: static {sp['status']}, run {rp['status']}")
            continue
        s, r = _causes(sp)[:1], _causes(rp)[:1]
        if s and r and (s[0][0], s[0][1]) != (r[0][0], r[0][1]):
            wrong.append(f"{where}: static {s[0]}, run {r[0]}")
        elif bool(s) != bool(r) and sp["status"] == "unconnected":
            wrong.append(f"{where}: static {s}, run {r}")
    return wrong


def _wrong(name: str, doc: dict, side: str) -> list[str]:
    """What one side gets wrong (a known class xfails; a fixed one fails to be dropped)."""
    if "failed" in doc:
        wrong = [doc["failed"]]
    elif side == "run":
        wrong = against_tensorflow(name, doc) + against_expectation(name, doc)
    else:
        static = static_document(CODE / f"{name}.py")
        if static is None:
            pytest.skip("the static reader refuses this snippet; its refusal names --run")
        wrong = against_static(doc, static)
    if (name, side) in KNOWN:
        if wrong:
            pytest.xfail(f"{KNOWN[(name, side)]}: {'; '.join(wrong)}")
        pytest.fail(f"fixed: drop KNOWN[{(name, side)}]")
    return wrong


@pytest.mark.slow
@pytest.mark.parametrize("side", ["run", "static"])
@pytest.mark.parametrize("name", EAGER)
def test_eager_snippet_both_ways(name, side):
    """An eager snippet: TensorFlow's values and causes by --run; the static reader agrees."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        doc = _eager_document(name)
    finally:
        os.chdir(cwd)
    wrong = _wrong(name, doc, side)
    assert not wrong, wrong


@cache
def _eager_document(name: str) -> dict:
    try:
        return run_document(CODE / f"{name}.py")
    except BaseException as exc:  # a SystemExit of gradcli: reported
        return {"failed": f"{type(exc).__name__}: {exc}"}


@pytest.mark.slow
@pytest.mark.parametrize("side", ["run", "static"])
@pytest.mark.parametrize("name", GRAPH)
def test_graph_snippet_both_ways(name, side):
    """A TF1 graph-mode snippet, the same checks (run in one subprocess for all of them)."""
    wrong = _wrong(name, graph_documents()[name], side)
    assert not wrong, wrong
