"""The examples of the core issue, with their exact values, through the CLI in JSON."""

import numpy as np
import pytest
from helpers import invoke, run_json, spec


def grads(doc):
    return {k: v["value"] for k, v in doc["gradients"].items()}


def test_quadratic_expression():
    doc = run_json("eval", "-e", "x*x + 3*x", "--at", "x=2")
    assert doc["outputs"]["f"]["value"] == 10.0
    assert grads(doc) == {"x": 7.0}


def test_quadratic_plain_pipeline():
    res = invoke("eval", "-e", "x*x + 3*x", "--at", "x=2", "--format", "plain")
    assert res.code == 0
    grad_lines = [line for line in res.stdout.splitlines() if line.startswith("grad")]
    assert [line.split("\t")[2] for line in grad_lines] == ["7"]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("quadratic.yaml", {"x": 7.0}),
        ("two_inputs.yaml", {"x": 3.0, "y": 8.0}),
        ("tutorial_z.yaml", {"x": 8.0, "y": 0.0}),
        ("cond_taken.yaml", {"x": 3.0, "y": 2.0}),
        ("cond_untaken.yaml", {"x": None, "y": None}),
        ("cond_constant_branch.yaml", {"x": None, "y": None}),
        ("stop_gradient.yaml", {"x": None, "y": 2.0}),
        ("custom_relu.yaml", {"x": [2.0, 0.0, 2.0]}),
        ("unused_input.yaml", {"w": None, "b": [[0.5, 0.5]]}),
    ],
)
def test_spec_examples(name, expected):
    assert grads(run_json("eval", spec(name))) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cond_untaken.yaml", {"x": 0.0, "y": 0.0}),
        ("cond_constant_branch.yaml", {"x": 0.0, "y": 0.0}),
        ("stop_gradient.yaml", {"x": 0.0, "y": 2.0}),
        ("unused_input.yaml", {"w": [[0.0, 0.0], [0.0, 0.0]], "b": [[0.5, 0.5]]}),
    ],
)
def test_zero_mode(name, expected):
    doc = run_json("eval", spec(name), "--unconnected", "zero")
    assert grads(doc) == expected
    assert doc["unconnected"] == "zero"


def test_statuses_follow_connectivity():
    doc = run_json("eval", spec("stop_gradient.yaml"), "--unconnected", "zero")
    assert doc["gradients"]["x"]["status"] == "unconnected"
    assert doc["gradients"]["y"]["status"] == "connected"


def test_cond_expression_both_points():
    expr = "cond(x > 0, x*y, 0.0)"
    assert grads(run_json("eval", "-e", expr, "--at", "x=2", "--at", "y=3")) == {"x": 3.0, "y": 2.0}
    doc = run_json("eval", "-e", expr, "--at", "x=-1", "--at", "y=3")
    assert grads(doc) == {"x": None, "y": None}
    assert doc["outputs"]["f"]["value"] == 0.0


def test_mask_gradient_equals_mask():
    doc = run_json("eval", spec("mask.yaml"))
    mask = np.eye(5, k=1) + np.eye(5, k=-4)
    assert np.array_equal(np.array(doc["gradients"]["x"]["value"]), mask)
    assert doc["gradients"]["x"]["shape"] == [5, 5]
