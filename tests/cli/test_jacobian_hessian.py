"""gradcli jacobian and gradcli hessian's command-line promises: the JSON document, the
plain and table formats, --unconnected, and errors as one line with exit 2 (their values
are checked in tests/core/test_derivatives.py).
"""

import numpy as np
import pytest
from helpers import invoke, run_json, spec


def write(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# --- JSON document ------------------------------------------------------------------------


def test_jacobian_json_document():
    doc = run_json("jacobian", spec("two_inputs.yaml"))
    assert doc == {
        "schema": 1,
        "jacobian": {
            "z": {
                "x": {"value": 3.0, "shape": [], "dtype": "float64", "status": "connected"},
                "y": {"value": 8.0, "shape": [], "dtype": "float64", "status": "connected"},
            }
        },
        "unconnected": "none",
    }


def test_hessian_json_document():
    # z = x*y + y*y: d2z/dxdy = 1, d2z/dy2 = 2, d2z/dx2 is None (dz/dx = y has no x)
    doc = run_json("hessian", spec("two_inputs.yaml"))
    block = {"shape": [], "dtype": "float64"}
    assert doc == {
        "schema": 1,
        "hessian": {
            "x": {
                "x": {"value": None, **block, "status": "unconnected"},
                "y": {"value": 1.0, **block, "status": "connected"},
            },
            "y": {
                "x": {"value": 1.0, **block, "status": "connected"},
                "y": {"value": 2.0, **block, "status": "connected"},
            },
        },
        "unconnected": "none",
    }


def test_unconnected_zero_gives_zero_blocks_of_the_full_shape():
    doc = run_json("hessian", spec("unused_input.yaml"), "--unconnected", "zero")
    assert doc["unconnected"] == "zero"
    ww = doc["hessian"]["w"]["w"]
    assert ww["status"] == "unconnected"
    assert ww["shape"] == [2, 2, 2, 2]
    assert np.array_equal(ww["value"], np.zeros((2, 2, 2, 2)))
    wb = doc["hessian"]["w"]["b"]
    assert wb["shape"] == [2, 2, 1, 2]
    assert np.array_equal(wb["value"], np.zeros((2, 2, 1, 2)))
    jac = run_json("jacobian", spec("unused_input.yaml"), "--unconnected", "zero")
    assert jac["jacobian"]["loss"]["w"] == {
        "value": [[0.0, 0.0], [0.0, 0.0]],
        "shape": [2, 2],
        "dtype": "float64",
        "status": "unconnected",
    }


def test_spec_unconnected_setting_is_followed(tmp_path):
    path = write(tmp_path, "inputs: {x: 1.0, y: 2.0}\ngraph: {z: x*x}\nunconnected: zero\n")
    doc = run_json("hessian", path)
    assert doc["hessian"]["y"]["y"] == {
        "value": 0.0,
        "shape": [],
        "dtype": "float64",
        "status": "unconnected",
    }
    assert doc["hessian"]["x"]["x"]["value"] == 2.0


def test_plain_format():
    res = invoke("hessian", spec("tutorial_z.yaml"), "--format", "plain")
    assert res.code == 0
    assert res.stdout.splitlines() == [
        "hessian\tx\tx\t2",
        "hessian\tx\ty\t1",
        "hessian\ty\tx\t1",
        "hessian\ty\ty\tNone",
    ]
    res = invoke("jacobian", "-e", "x*x + 3*x", "--at", "x=2", "--format", "plain")
    assert (res.code, res.stdout) == (0, "jacobian\tf\tx\t7\n")


def test_table_format():
    res = invoke("hessian", spec("two_inputs.yaml"), "--format", "table")
    assert res.code == 0
    assert "hessian" in res.stdout
    assert "unconnected: no differentiable path" in res.stdout
    assert "connected" in res.stdout
    res = invoke("jacobian", spec("custom_relu.yaml"), "--format", "table")
    assert res.code == 0
    assert "(3,)" in res.stdout and "[2., 0., 2.]" in res.stdout


# --- errors --------------------------------------------------------------------------------


def test_hessian_of_a_non_scalar_output_is_exit_2_naming_the_entry():
    res = invoke("hessian", spec("custom_relu.yaml"), "--wrt", "x", "--format", "json")
    assert res.code == 0  # z = sum(y) is scalar
    res = invoke("hessian", spec("mask.yaml"), "--format", "json")
    assert res.code == 0
    res = invoke("hessian", "-e", "x * 2", "--at", "x=[1, 2]")
    assert res.code == 2
    assert res.stdout == ""
    assert res.stderr.startswith("gradcli: error: <expr>:1:1: hessian needs a scalar")
    assert len(res.stderr.splitlines()) == 1


def test_hessian_error_names_the_spec_line(tmp_path):
    path = write(tmp_path, "inputs:\n  x: [1.0, 2.0]\ngraph:\n  y: x * x\n")
    res = invoke("hessian", path)
    assert res.code == 2
    assert res.stderr == (
        f"gradcli: error: {path}:4:3: hessian needs a scalar output, but 'y' has shape (2,); "
        "reduce it (e.g. sum(...)) or use `gradcli jacobian`\n"
    )


@pytest.mark.parametrize("command", ["jacobian", "hessian"])
def test_bad_input_is_one_line_exit_2(command, tmp_path):
    res = invoke(command, str(tmp_path / "missing.yaml"))
    assert res.code == 2 and len(res.stderr.splitlines()) == 1
    assert "cannot read" in res.stderr
    res = invoke(command, "-e", "x +", "--at", "x=1")
    assert res.code == 2 and res.stderr.startswith("gradcli: error: <expr>:1:")
    res = invoke(command, spec("quadratic.yaml"), "--wrt", "nope")
    assert res.code == 2 and len(res.stderr.splitlines()) == 1
    res = invoke(command, spec("quadratic.yaml"), "--format", "svg")
    assert res.code == 2


def test_size_limit_is_exit_2(tmp_path):
    path = write(tmp_path, "inputs:\n  x: {zeros: [300]}\ngraph:\n  y: x * 2\n")
    res = invoke("--max-elements", "10000", "jacobian", path)
    assert res.code == 2
    assert "90,000 elements" in res.stderr and len(res.stderr.splitlines()) == 1
