"""The static TensorFlow reader (the default, without --run) on the real-thread scripts of
tests/data/tf_threads: it is never wrong. For every script of manifest.json, `explain` and
`eval` (JSON, through the CLI) each either refuse (exit 2, one stderr line naming
file:line:col and `--run`) or answer exactly as TensorFlow 2.21 did:

- explain: the manifest's cause kind at its culprit line (or one of its also_lines), exit 1
  (0 when every gradient is connected, partly zero included); for the healthy controls
  (kind "ok") exit 0;
- eval: every gradient call matched to the one TensorFlow made at that line (in order), each
  value TensorFlow's (reference.json, recorded by tools/tf_threads_reference.py from plain
  runs): None exactly where TensorFlow gave None, the numbers within float rounding (gradcli's
  NumPy kernels sum in another order than TensorFlow's), NaN, Inf and zeros where TensorFlow
  had them; a "symbolic" entry (a traced step's) only needs to be connected;
- what TensorFlow raised (reference.json's `raises`, and a call's `raised`) is what the reader
  says it raises.

The manifest is read, not listed here: scripts added to it are tested too. TensorFlow is not
needed (the reader never imports it; the expectations are stored data).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helpers import invoke

DATA = Path(__file__).resolve().parents[1] / "data" / "tf_threads"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
REFERENCE = json.loads((DATA / "reference.json").read_text())["cases"]
# explain's words for the manifest's zero kind
ZERO_KINDS = {"zero_derivative": {"zero_derivative", "underflow", "inactive"}}
# float rounding between gradcli's NumPy kernels and TensorFlow's (relative, per dtype)
RTOL = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 2e-6, "float64": 1e-12}
REFUSAL = re.compile(r"^gradcli: error: (?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)$")
# scripts the static reader still answers wrongly (strict: a fix makes them pass)
KNOWN_WRONG: dict[str, str] = {}


@cache
def result(command: str, name: str):
    """(exit code, JSON document or None, stderr) of `gradcli COMMAND FILE --format json`."""
    extra = ("--check", "off") if command == "eval" else ()
    res = invoke(command, DATA / name, "--format", "json", *extra)
    doc = json.loads(res.stdout) if res.code != 2 and res.stdout.strip() else None
    return res.code, doc, res.stderr


def refusal_problem(name: str, stderr: str) -> str | None:
    """What is wrong with a refusal's stderr (None: one positioned line naming --run, or the
    error TensorFlow raised at its line, for a script TensorFlow stops with it)."""
    lines = stderr.splitlines()
    raised = REFERENCE.get(name, {}).get("raises")
    m = REFUSAL.match(lines[0]) if len(lines) == 1 else None
    if (
        m
        and raised
        and int(m["line"]) == raised["line"]
        and m["msg"].startswith(f"{raised['type']}: ")
    ):
        return None
    if len(lines) != 1:
        return f"a refusal is one line, got {len(lines)}: {stderr!r}"
    m = REFUSAL.match(lines[0])
    if m is None or not m["file"].endswith(name):
        return f"a refusal names file:line:col: {lines[0]!r}"
    if "--run" not in m["msg"] or "needs TensorFlow" not in m["msg"]:
        return f"a refusal says how to read the file with --run (needs TensorFlow): {lines[0]!r}"
    return None


def causes_of(doc: dict) -> list[tuple[str, int | None]]:
    """Every (kind, line) an explain document names: pairs, call errors, the program error."""
    found = [(c["kind"], c["line"]) for p in doc["pairs"] for c in p["causes"]]
    for call in doc["calls"]:
        if call["error"] and call["error"].get("causes"):
            found += [(c["kind"], c["line"]) for c in call["error"]["causes"]]
    if doc["error"] and doc["error"].get("causes"):
        found += [(c["kind"], c["line"]) for c in doc["error"]["causes"]]
    return found


def explain_problems(entry: dict) -> list[str]:
    code, doc, stderr = result("explain", entry["file"])
    if code == 2:
        problem = refusal_problem(entry["file"], stderr)
        return [problem] if problem else []
    if code not in (0, 1) or doc is None:
        return [f"explain exit {code}: {stderr}"]
    wrong = raised_problems(entry["file"], doc)
    if entry["kind"] == "raises":  # TensorFlow stops with an error (checked above), no cause
        return wrong + ([f"a script TensorFlow stops, exit {code}"] if code != 1 else [])
    if entry["kind"] == "ok":
        if code != 0:
            wrong.append(f"a healthy control, exit {code}: {sorted(set(causes_of(doc)))}")
        return wrong
    kinds = ZERO_KINDS.get(entry["kind"], {entry["kind"]})
    lines = {entry["culprit_line"], *entry.get("also_lines", ())}
    if not any(k in kinds and line in lines for k, line in causes_of(doc)):
        want = f"{entry['kind']} at line {sorted(lines)}"
        wrong.append(f"expected {want}, explain names {sorted(set(causes_of(doc)))}")
    # a finding sets exit 1, unless every gradient is connected (partly zero is normal in a
    # network: docs/limits.md), as with --run
    serious = any(p["status"] not in ("connected", "partially_zero") for p in doc["pairs"])
    serious |= doc["error"] is not None or any(
        c["error"] is not None or c["unknown"] is not None for c in doc["calls"]
    )
    if code != (1 if serious else 0):
        wrong.append(f"a finding, exit {code}")
    return wrong


def raised_problems(name: str, doc: dict) -> list[str]:
    """TensorFlow's error (reference `raises`) against the one the reader reports."""
    raised = REFERENCE[name].get("raises")
    said = [(c["line"], c["error"]["type"]) for c in doc["calls"] if c["error"]]
    if doc["error"]:
        said.append((doc["error"]["line"], doc["error"]["type"]))
    if raised is None:
        return [f"TensorFlow raised nothing; the reader says {said}"] if said else []
    if not said:
        return [f"TensorFlow raised {raised['type']} at line {raised['line']}; the reader no"]
    if raised["type"] not in {t for _, t in said}:
        return [f"TensorFlow raised {raised['type']} at line {raised['line']}; reader {said}"]
    return []


def eval_problems(entry: dict) -> list[str]:
    name = entry["file"]
    code, doc, stderr = result("eval", name)
    if code == 2:
        problem = refusal_problem(name, stderr)
        return [problem] if problem else []
    if code not in (0, 1) or doc is None:
        return [f"eval exit {code}: {stderr}"]
    reference = REFERENCE[name]["calls"]
    wrong, used = [], set()
    for call in doc["calls"]:
        left = [i for i in range(len(reference)) if i not in used]
        # by line, else the next in order (a call inside a traced function is recorded at the
        # line that ran it)
        k = next(
            (i for i in left if reference[i]["line"] == call["line"]), left[0] if left else None
        )
        if k is None:
            wrong.append(f"a gradient call at line {call['line']} TensorFlow did not make")
            continue
        used.add(k)
        if "result" not in reference[k]:  # the call raised in TensorFlow
            if call["error"] is None and call.get("unknown") is None:
                wrong.append(f"line {call['line']}: TensorFlow raised {reference[k]['raised']}")
            continue
        if call["error"] is not None or call.get("unknown") is not None:
            continue  # TensorFlow raises there (checked by explain), or unknown: no values
        ref = reference[k]["result"]
        if len(call["gradients"]) != len(ref):
            wrong.append(f"line {call['line']}: {len(call['gradients'])} gradients, TF {len(ref)}")
            continue
        for g, r in zip(call["gradients"], ref):
            problem = value_problem(g, r)
            if problem:
                wrong.append(f"line {call['line']} {g['name']}: {problem}")
    return wrong


def value_problem(g: dict, r) -> str | None:
    """How one gradient differs from TensorFlow's (None: it does not)."""
    if r is None:
        return None if g["value"] is None else f"TensorFlow gave None, gradcli {g['status']}"
    if r == "symbolic":
        return "TensorFlow gave a gradient, gradcli None" if g["status"] == "unconnected" else None
    if g["value"] is None:
        return f"TensorFlow gave numbers, gradcli {g['status']}"
    if g["shape"] != r["shape"] or g["dtype"] != r["dtype"]:
        return f"{g['dtype']}{g['shape']} != TensorFlow's {r['dtype']}{r['shape']}"
    a, b = _array(g["value"], g["dtype"]), _array(r["value"], r["dtype"])
    if b.dtype.kind != "f":
        return None if np.array_equal(a, b) else f"{a.tolist()} != {b.tolist()}"
    special = np.isnan(b) | np.isinf(b) | (b == 0)
    same_special = np.array_equal(a[special], b[special], equal_nan=True)
    close = np.allclose(a[~special], b[~special], rtol=RTOL[r["dtype"]], atol=0)
    ok = same_special and close and not (np.isnan(a) | np.isinf(a) | (a == 0))[~special].any()
    return None if ok else f"{a.tolist()} != TensorFlow's {b.tolist()}"


def _array(value, dtype: str) -> np.ndarray:
    flat = np.array(value, dtype=object).reshape(-1)
    flat = [float(v) if isinstance(v, str) else v for v in flat]
    shape = np.shape(np.array(value, dtype=object))
    return np.array(flat, dtype=dtype).reshape(shape)


def _ids():
    return [e["file"] for e in MANIFEST]


def _check(entry: dict, wrong: list[str]) -> None:
    if entry["file"] in KNOWN_WRONG:
        if wrong:
            pytest.xfail(KNOWN_WRONG[entry["file"]])
        pytest.fail(f"fixed: drop KNOWN_WRONG[{entry['file']!r}]")
    assert not wrong, wrong


def test_every_script_has_tensorflows_record():
    assert MANIFEST and all(e["file"] in REFERENCE for e in MANIFEST)


@pytest.mark.parametrize("entry", MANIFEST, ids=_ids())
def test_explain_refuses_or_names_the_threads_culprit(entry):
    _check(entry, explain_problems(entry))


@pytest.mark.parametrize("entry", MANIFEST, ids=_ids())
def test_eval_refuses_or_gives_tensorflows_values(entry):
    _check(entry, eval_problems(entry))


def test_a_wrong_answer_is_caught():
    """The checks themselves: a value, a None and a cause that are not TensorFlow's fail."""
    ref = {"dtype": "float32", "shape": [2], "value": [1.0, "nan"]}
    good = {"name": "x", "status": "connected", "dtype": "float32", "shape": [2]}
    assert value_problem({**good, "value": [1.0, "nan"]}, ref) is None
    assert value_problem({**good, "value": [1.0000001, "nan"]}, ref) is None  # rounding
    assert value_problem({**good, "value": [1.001, "nan"]}, ref)
    assert value_problem({**good, "value": [1.0, 0.0]}, ref)
    assert value_problem({**good, "value": None, "status": "unconnected"}, ref)
    assert value_problem({**good, "value": [1.0, 1.0]}, None)
    assert value_problem({**good, "value": None, "status": "unconnected"}, "symbolic")
    assert refusal_problem("a.py", "gradcli: error: a.py:3:1: no; read it by running it: "
                           "gradcli explain --run a.py (needs TensorFlow)\n") is None  # fmt: skip
    assert refusal_problem("a.py", "gradcli: error: a.py:3:1: not supported\n")
