"""eval, check and explain flag the gradient elements decided by a convention, through the CLI.

TensorFlow's values are its own (tests/data/conventions_reference.json); the one-sided
differences are independent maths (relu(x) * 2 has slopes 0 and 2 at x = 0).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
REFERENCE = {
    c["id"]: c for c in json.loads((DATA / "conventions_reference.json").read_text())["cases"]
}


def gradcli(*args):
    import os

    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *args], capture_output=True, text=True, env=env
    )


def test_check_gives_the_convention_verdict_with_its_count_and_one_sided_differences():
    r = gradcli("check", "-e", "relu(x) * 2", "--at", "x=[0, 1]", "--format", "json")
    assert r.returncode == 0, r.stderr
    x = json.loads(r.stdout)["inputs"]["x"]
    assert x["verdict"] == "convention"
    assert x["conventions"] == 1
    (o,) = x["one_sided"]
    assert (o["element"], o["index"]) == ("x[0]", [0])
    assert o["below"] == pytest.approx(0.0, abs=1e-9)
    assert o["above"] == pytest.approx(2.0, rel=1e-6)


@pytest.mark.parametrize("method", ["sympy", "fd"])
def test_check_table_says_convention_never_plain_ok(method):
    r = gradcli("check", "-e", "relu(x) * 2", "--at", "x=[0, 1]", "--method", method)
    assert r.returncode == 0, r.stderr
    assert "convention (1)" in r.stdout
    assert "x[0]: a convention, not a derivative; one-sided differences 0" in r.stdout
    assert "only with TensorFlow's convention" in r.stdout


def test_check_away_from_the_kink_agrees_as_before():
    r = gradcli("check", "-e", "relu(x) * 2", "--at", "x=[2, 1]", "--format", "json")
    x = json.loads(r.stdout)["inputs"]["x"]
    assert x["verdict"] == "agree"
    assert "conventions" not in x and "one_sided" not in x


def test_eval_json_lists_the_tie_with_tensorflows_value():
    case = REFERENCE["maximum_tie"]
    r = gradcli("eval", "-e", case["expr"], "--at", "x=[1, 2]", "--at", "y=[1, 0]",
                "--format", "json", "--check", "off")  # fmt: skip
    assert r.returncode == 0, r.stderr
    grads = json.loads(r.stdout)["gradients"]
    assert grads["x"]["value"] == case["tensorflow"]["x"]
    (site,) = grads["x"]["conventions"]
    assert (site["op"], site["kind"], site["of"], site["node"], site["line"]) == (
        "maximum", "tie", "x", "f", 1,
    )  # fmt: skip
    assert (site["count"], site["elements"], site["values"]) == (1, [[0]], [1.0])
    assert site["one_sided"] == [[0.0, 1.0]]
    assert "0.5" in site["pytorch"]
    assert [s["of"] for s in grads["y"]["conventions"]] == ["y"]


def test_eval_json_has_no_conventions_field_away_from_the_points():
    r = gradcli("eval", "-e", "relu(x)", "--at", "x=[1, 2]", "--format", "json", "--check", "off")
    assert "conventions" not in json.loads(r.stdout)["gradients"]["x"]


def test_eval_table_marks_the_gradient_and_footnotes_it():
    r = gradcli("eval", "-e", "abs(x)", "--at", "x=[0, 1]", "--check", "off", "--format", "table")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if line.startswith(" x "))
    assert row.rstrip().endswith("†")
    assert (
        "† x: x[0] = 0 is at abs's kink (input = 0) in f, line 1: TensorFlow gives 0 (sign(0) = 0);"
        " the one-sided derivatives are -1 and 1; PyTorch also gives 0; JAX gives 1"
    ) in r.stdout


def test_explain_json_and_footnote():
    r = gradcli("explain", "-e", "relu(x) * y", "--at", "x=[0, 1]", "--at", "y=2",
                "--format", "json")  # fmt: skip
    pairs = {p["input"]: p for p in json.loads(r.stdout)["pairs"]}
    assert [s["op"] for s in pairs["x"]["conventions"]] == ["relu"]
    assert "conventions" not in pairs["y"]
    r = gradcli("explain", "-e", "relu(x) * y", "--at", "x=[0, 1]", "--at", "y=2")
    assert "† df/dx: x[0] = 0 is at relu's kink" in r.stdout


def test_tensorflow_code_gets_the_flags_through_the_same_path():
    case = REFERENCE["relu_0"]  # the same point: x = [-1, 0, 2]
    r = gradcli("eval", str(DATA / "conventions" / "relu_at_kink.py"), "--format", "json",
                "--check", "off")  # fmt: skip
    assert r.returncode == 0, r.stderr
    (grad,) = json.loads(r.stdout)["calls"][0]["gradients"]
    assert grad["value"] == case["tensorflow"]["x"]
    (site,) = grad["conventions"]
    assert (site["op"], site["of"], site["elements"], site["line"]) == ("relu", "x", [[1]], 6)


def test_tensorflow_code_explain_and_check_flag_it_too():
    path = str(DATA / "conventions" / "relu_at_kink.py")
    r = gradcli("explain", path, "--format", "json")
    (pair,) = json.loads(r.stdout)["pairs"]
    assert [(s["op"], s["elements"]) for s in pair["conventions"]] == [("relu", [[1]])]
    r = gradcli("check", path, "--format", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    x = doc["calls"][0]["inputs"]["x"]
    assert (x["verdict"], x["conventions"]) == ("convention", 1)
    (o,) = x["one_sided"]
    assert o["element"] == "x[1]"
    assert (o["below"], o["above"]) == (pytest.approx(0.0, abs=1e-9), pytest.approx(1.0))


def test_eval_json_names_the_op_inside_a_composite_and_every_field():
    case = REFERENCE["mean_absolute_error_0"]
    r = gradcli("eval", "-e", case["expr"], "--at", "x=[1, 2]", "--at", "y=[1, 3]",
                "--format", "json", "--check", "off")  # fmt: skip
    grads = json.loads(r.stdout)["gradients"]
    assert grads["x"]["value"] == case["tensorflow"]["x"]
    (site,) = grads["x"]["conventions"]
    fields = "op inside node line of kind count elements values one_sided point tensorflow"
    assert set(site) == {*fields.split(), "pytorch", "jax"}
    assert (site["op"], site["inside"], site["kind"], site["elements"]) == (
        "abs", "mean_absolute_error", "kink", [[0]],
    )  # fmt: skip
    assert site["one_sided"] == [[-1.0, 1.0]]
    assert site["point"] == "abs's kink (input = 0)"
    assert site["tensorflow"].startswith("TensorFlow gives 0")
    assert site["jax"].startswith("JAX gives 1")
