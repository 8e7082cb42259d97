"""Every place the static reader reports TensorFlow's (or Python's, Keras's) error is backed by
a recorded TensorFlow 2.21 run: a snippet in tests/data/tf_errors.json (tools/tf_error_sites.py)
whose TensorFlow run raised, and whose reading takes the reader through that place.

A site is found in gradcli/tfcode's source by its shape: a `Raises(...)` (the program's error),
a `GradcliError` whose text starts with an error type's name ("ValueError: ...") or claims
"TensorFlow raises X", a refusal claiming "TensorFlow raises X", an error record
{"type": "XError", ...} (a gradient call's error), or a string "XError: ..." built for one of
these. test_tf_errors.py checks that each recorded snippet's reading agrees with TensorFlow; this
test checks that every site is reached by one of them, so a new unbacked site fails here.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path

import gradcli.tfcode
from gradcli.runtime.errors import GradcliError
from gradcli.tfcode import read_program
from gradcli.tfcode.support import Raises

ROOT = Path(__file__).resolve().parents[2]
# the reader as imported (in place, or installed into site-packages as CI installs it): its
# files are scanned and traced, named relative to the folder that holds the package
PACKAGE = Path(gradcli.tfcode.__file__).resolve().parent
BASE = PACKAGE.parent.parent
RECORDS = json.loads((ROOT / "tests" / "data" / "tf_errors.json").read_text())["snippets"]
TYPE = re.compile(r"^[A-Z]\w*(Error|Exception|StopIteration)(: |$)")
TEXT = re.compile(r"^[A-Z]\w*(Error|Exception): ")  # a message naming its error type
CLAIM = re.compile(r"raises [A-Z]\w*(Error|Exception)")


def _texts(node) -> list[str]:
    constants = (n for n in ast.walk(node) if isinstance(n, ast.Constant))
    return [n.value for n in constants if isinstance(n.value, str)]


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else (f.attr if isinstance(f, ast.Attribute) else "")


def _site_kind(node) -> str | None:
    """What kind of error site `node` is, or None."""
    if isinstance(node, ast.Call):
        name, texts = _name(node), _texts(node)
        if name == "Raises":
            return "Raises"
        if name == "GradcliError" and node.args:
            first = _texts(node.args[0])
            if (first and TYPE.match(first[0])) or "type(exc)" in ast.unparse(node.args[0]):
                return "error text"
            if CLAIM.search("".join(first)):
                return "error claim"
        if name in ("refuse", "unsupported", "add") and CLAIM.search("".join(texts)):
            return "refusal claim"
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            named = isinstance(k, ast.Constant) and k.value == "type"
            if named and isinstance(v, ast.Constant) and TYPE.match(str(v.value)):
                return "error record"
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        if isinstance(head, ast.Constant) and TEXT.match(str(head.value)):
            return "error string"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and TEXT.match(node.value):
        return "error string"
    return None


def error_sites() -> list[tuple[str, int, int, str]]:
    """(file, first line, last line, kind) of every error site in gradcli/tfcode."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and n.body and isinstance(n.body[0], ast.Expr)
        }  # fmt: skip
        spans = []
        for node in ast.walk(tree):
            kind = _site_kind(node)
            if kind is None or id(node) in docs:
                continue
            span = (node.lineno, node.end_lineno)
            if any(a <= span[0] and span[1] <= b for a, b, _ in spans):
                continue  # a string inside a site already listed
            spans.append((*span, kind))
        rel = str(path.relative_to(BASE))
        out += [(rel, a, b, k) for a, b, k in spans if not _inside_other(spans, a, b)]
    return out


def _inside_other(spans, a, b) -> bool:
    return any((x, y) != (a, b) and x <= a and b <= y for x, y, _ in spans)


RAISING = {"Raises", "error text", "error claim"}  # sites that raise the error themselves


def _lines_run(code: str) -> tuple[set, set]:
    """The (file, line) pairs of gradcli/tfcode that reading `code` executes, and those where
    a Raises or GradcliError was raised (its first frame)."""
    seen: set[tuple[str, int]] = set()
    raised: set[tuple[str, int]] = set()
    first: set[int] = set()
    prefix = str(PACKAGE)

    def local(frame, event, arg):
        if event == "line":
            seen.add((frame.f_code.co_filename, frame.f_lineno))
        elif (
            event == "exception"
            and isinstance(arg[1], (GradcliError, Raises))
            and id(arg[1]) not in first
        ):
            first.add(id(arg[1]))
            raised.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    ours: dict[str, bool] = {}  # a frame's file name -> whether it is the reader's

    def outer(frame, event, arg):
        name = frame.f_code.co_filename
        if name not in ours:
            ours[name] = os.path.realpath(name).startswith(prefix)
        return local if ours[name] else None

    sys.settrace(outer)
    try:
        read_program(code.encode(), "snippet.py")
    except GradcliError:
        pass
    finally:
        sys.settrace(None)

    def rel(pairs):
        return {(str(Path(os.path.realpath(f)).relative_to(BASE)), n) for f, n in pairs}

    return rel(seen), rel(raised)


def test_the_scan_finds_the_error_sites():
    kinds = {k for *_, k in error_sites()}
    assert {"Raises", "error text", "error record"} <= kinds and len(error_sites()) > 100


def test_every_error_site_is_backed_by_a_recorded_tensorflow_run():
    run: set[tuple[str, int]] = set()
    raised: set[tuple[str, int]] = set()
    for record in RECORDS.values():
        if record["error"] is not None:  # only a run where TensorFlow raised backs an error
            lines, raises = _lines_run(record["code"])
            run |= lines
            raised |= raises
    missing = [
        f"{file}:{a} ({kind})"
        for file, a, b, kind in error_sites()
        if not any((file, n) in (raised if kind in RAISING else run) for n in range(a, b + 1))
    ]
    assert not missing, f"{len(missing)} error sites no recorded snippet reaches: {missing}"
