"""Every example of the README and of docs/ prints what the page shows: the `$ gradcli ...`
lines of console blocks, the `# prints ...` pipelines of sh blocks, the Python sessions of
python blocks, the program excerpts and the JSON excerpts."""

import doctest
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from docs_pages import PAGES, blocks, name
from helpers import ROOT, invoke


def console_examples():
    """(page, command, expected output) for each `$ gradcli` line of a ```console block."""
    found = []
    for page in PAGES:
        for _, _, body in blocks(page, "console"):
            lines = body.splitlines()
            i = 0
            while i < len(lines):
                if lines[i].startswith("$ gradcli "):
                    command = lines[i][2:]
                    i += 1
                    out = []
                    while i < len(lines) and not lines[i].startswith("$ "):
                        out.append(lines[i])
                        i += 1
                    found.append((name(page), command, "\n".join(out).rstrip()))
                else:
                    i += 1
    return found


@pytest.mark.parametrize(("page", "command", "expected"), console_examples())
def test_console_example(page, command, expected, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")  # Rich reads the width from COLUMNS
    args = shlex.split(command)[1:]
    assert "|" not in args, "pipelines go in sh blocks with a `# prints` comment"
    if "--run" in args:  # the run mode's examples run the real framework
        pytest.importorskip("torch", reason="a --run example runs real PyTorch")
    res = invoke(*args)
    shown = (res.stdout + res.stderr).rstrip()
    if "--run" in args and shown != expected:
        # the framework's own float32 numbers: its CPU kernels (AVX2, AVX-512, oneDNN) may
        # round the last digits differently on another machine; the text stays exact
        assert _same_text_close_numbers(shown, expected), f"{page}: {command}\n{shown}"
        return
    assert shown == expected, f"{page}: {command}"


NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _same_text_close_numbers(shown: str, expected: str) -> bool:
    a, b = NUMBER.findall(shown), NUMBER.findall(expected)
    if NUMBER.sub("#", shown) != NUMBER.sub("#", expected) or len(a) != len(b):
        return False
    return all(abs(float(x) - float(y)) <= 1e-5 * max(abs(float(y)), 1e-3) for x, y in zip(a, b))


def test_there_are_examples_on_the_pages_that_show_commands():
    pages = {page for page, _, _ in console_examples()}
    for page in ["README.md", "docs/commands.md", "docs/explain.md", "docs/json.md"]:
        assert page in pages, page


PRINTS = re.compile(r"^(?P<command>.*\S)\s+# prints (?P<expected>.*)$")


def pipelines():
    """(page, shell line, expected stdout) for each sh line ending in `# prints OUTPUT`."""
    found = []
    for page in PAGES:
        for _, _, body in blocks(page, "sh"):
            for line in body.splitlines():
                m = PRINTS.match(line)
                if m:
                    found.append((name(page), m.group("command"), m.group("expected")))
    return found


@pytest.mark.parametrize(("page", "command", "expected"), pipelines())
def test_pipeline_example(page, command, expected):
    # the gradcli script installed beside this Python comes first on PATH
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "PATH": path}
    proc = subprocess.run(["bash", "-c", f"set -o pipefail; {command}"], cwd=ROOT, env=env,
                          text=True, capture_output=True, timeout=120)  # fmt: skip
    assert proc.stdout.rstrip("\n") == expected, (page, command, proc.stderr)


def test_the_readme_has_pipelines():
    assert any(page == "README.md" for page, _, _ in pipelines())


def python_sessions():
    """(page, the page's ```python blocks holding `>>>` sessions, joined) per page."""
    found = []
    for page in PAGES:
        sessions = [body for _, _, body in blocks(page, "python") if ">>> " in body]
        if sessions:
            found.append((name(page), "\n\n".join(sessions)))
    return found


@pytest.mark.parametrize(("page", "session"), python_sessions())
def test_python_session(page, session):
    test = doctest.DocTestParser().get_doctest(session, {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 0, f"{page}: see the doctest report above"


def test_the_library_page_has_a_session():
    assert "docs/library.md" in {page for page, _ in python_sessions()}


FROM_FILE = re.compile(r"^<!-- from (\S+) -->$")


def file_excerpts():
    """(page, file, shown) for each ```python block under a `<!-- from FILE -->` line."""
    return [(name(page), m.group(1), body)
            for page in PAGES for _, before, body in blocks(page, "python")
            if (m := FROM_FILE.match(before))]  # fmt: skip


@pytest.mark.parametrize(("page", "file", "shown"), file_excerpts())
def test_a_program_shown_is_the_file_without_its_comment_header(page, file, shown):
    lines = (ROOT / file).read_text().splitlines()
    while lines and lines[0].startswith("#"):  # the reference data's `# expect:` header
        lines.pop(0)
    assert shown.strip() == "\n".join(lines).strip(), f"{page}: {file}"


def test_the_readme_shows_a_program():
    assert any(page == "README.md" for page, _, _ in file_excerpts())


EXCERPT_OF = re.compile(r"^<!-- excerpt of: (gradcli .*) -->$")


def contained(shown, real) -> bool:
    """True when `shown` is `real` with some keys left out and lists cut short."""
    if isinstance(shown, dict):
        return isinstance(real, dict) and all(
            k in real and contained(v, real[k]) for k, v in shown.items()
        )
    if isinstance(shown, list):
        return (isinstance(real, list) and len(shown) <= len(real)
                and all(contained(s, r) for s, r in zip(shown, real)))  # fmt: skip
    return shown == real and type(shown) is type(real)


def json_excerpts():
    """(page, command, excerpt) for each ```json block under `<!-- excerpt of: COMMAND -->`."""
    return [(name(page), m.group(1), body)
            for page in PAGES for _, before, body in blocks(page, "json")
            if (m := EXCERPT_OF.match(before))]  # fmt: skip


@pytest.mark.parametrize(("page", "command", "excerpt"), json_excerpts())
def test_json_excerpt_is_part_of_the_real_document(page, command, excerpt, monkeypatch):
    monkeypatch.chdir(ROOT)
    res = invoke(*shlex.split(command)[1:])
    assert contained(json.loads(excerpt), json.loads(res.stdout)), f"{page}: {command}"


def test_contained_refuses_what_the_document_does_not_hold():
    real = {"a": [1, 2], "b": {"c": None}}
    assert contained({"a": [1], "b": {}}, real)
    assert not contained({"a": [2]}, real)
    assert not contained({"d": 1}, real)
    assert not contained({"a": [1, 2, 3]}, real)
    assert not contained({"a": [1.0]}, real)


def test_every_json_block_is_valid_json():
    wrong = []
    for page in PAGES:
        for line, _, body in blocks(page, "json"):
            try:
                json.loads(body)
            except ValueError as e:
                wrong.append(f"{name(page)}:{line}: {e}")
    assert not wrong, "\n".join(wrong)
