"""Every `$ gradcli ...` example in the README's console blocks prints what the README shows."""

import re
import shlex

import pytest
from helpers import ROOT, invoke

DOCS = [ROOT / "README.md", ROOT / "specs" / "README.md"]


def examples():
    """(doc, command, expected output) for each `$ gradcli` line of a ```console block."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
            lines = block.splitlines()
            i = 0
            while i < len(lines):
                if lines[i].startswith("$ gradcli "):
                    command = lines[i][2:]
                    i += 1
                    out = []
                    while i < len(lines) and not lines[i].startswith("$ "):
                        out.append(lines[i])
                        i += 1
                    found.append((doc.name, command, "\n".join(out).rstrip()))
                else:
                    i += 1
    return found


@pytest.mark.parametrize(("doc", "command", "expected"), examples())
def test_console_example(doc, command, expected, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")  # Rich reads the width from COLUMNS
    args = shlex.split(command)[1:]
    assert "|" not in args, "pipelines are tested separately"
    res = invoke(*args)
    shown = (res.stdout + res.stderr).rstrip()
    assert shown == expected, f"{doc}: {command}"


def test_there_are_examples():
    assert len(examples()) >= 2
