"""gradcli graph's command-line promises: -o writes what stdout shows, errors are one line
with exit 2 (the renderings are checked in tests/views/test_graph.py).
"""

import json
from pathlib import Path

import pytest
from helpers import invoke, spec

FORMATS = ["tree", "dot", "mermaid", "json"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_file_holds_what_stdout_shows(fmt, tmp_path):
    target = tmp_path / f"graph.{fmt}"
    res = invoke("graph", spec("two_inputs.yaml"), "--grad", "--format", fmt, "-o", target)
    assert res.code == 0 and res.stdout == ""
    shown = invoke("graph", spec("two_inputs.yaml"), "--grad", "--format", fmt).stdout
    assert target.read_text() == shown
    if fmt == "json":
        json.loads(shown)


def test_unwritable_output_is_one_line_exit_2(tmp_path):
    res = invoke("graph", spec("quadratic.yaml"), "-o", tmp_path)
    assert res.code == 2
    assert res.stderr.startswith(f"gradcli: error: cannot write {tmp_path}: ")
    assert len(res.stderr.splitlines()) == 1


def test_bad_input_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("inputs: {x: 1.0}\ngraph:\n  y: x +\n")
    res = invoke("graph", bad)
    assert res.code == 2 and res.stdout == ""
    assert res.stderr.startswith(f"gradcli: error: {bad}:3:")
    assert len(res.stderr.splitlines()) == 1
    assert invoke("graph", spec("quadratic.yaml"), "--format", "png").code == 2  # svg is a format
    assert invoke("graph", spec("quadratic.yaml"), "--wrt", "nope").code == 2
    assert invoke("graph").code == 2


def test_output_onto_the_input_spec_is_refused_and_the_spec_kept(tmp_path):
    target = tmp_path / "q.yaml"
    target.write_text(Path(spec("quadratic.yaml")).read_text())
    before = target.read_text()
    res = invoke("graph", target, "-o", target)
    assert res.code == 2 and res.stdout == ""
    assert res.stderr == f"gradcli: error: -o {target} would overwrite the input {target}\n"
    assert target.read_text() == before
