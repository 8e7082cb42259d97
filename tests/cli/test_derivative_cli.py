"""gradcli derivative's command-line promises: the JSON document, plain and table formats,
--save, --unconnected, and errors as one line with exit 2 (values: tests/core/test_higher_order.py
and the TensorFlow cases of tests/conformance/test_tf_reference.py)."""

import json

import numpy as np
import pytest
from helpers import invoke, run_json, spec


def write(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def error(*args) -> str:
    """Run a command that must fail: exit 2, nothing on stdout, one line on stderr."""
    res = invoke(*args)
    assert res.code == 2, (res.code, res.stdout, res.stderr)
    assert res.stdout == ""
    assert len(res.stderr.splitlines()) == 1 and res.stderr.startswith("gradcli: error: ")
    return res.stderr


def test_json_document_lists_order_and_wrt_of_every_block():
    # z = x*y + y*y (two_inputs.yaml, x = 2, y = 3): every third derivative is None or 0;
    # d/dy d/dy of dz/dx = y: None; d/dx (d/dy d/dy z = 2): None
    doc = run_json("derivative", spec("two_inputs.yaml"), "--order", "3")
    block = {"value": None, "shape": [], "dtype": "float64", "status": "unconnected"}
    assert doc == {
        "schema": 1,
        "derivative": {
            "order": 3,
            "blocks": [{"wrt": ["x", "x", "x"], **block}, {"wrt": ["y", "y", "y"], **block}],
        },
        "unconnected": "none",
    }


def test_wrt_sequence_fixes_the_order_innermost_first():
    # f = x*x*y + x*sin(y): d/dx f = 2xy + sin y, then d/dy: 2x + cos y, then d/dy: -sin y
    args = ["-e", "x*x*y + x*sin(y)", "--at", "x=0.5", "--at", "y=2"]
    doc = run_json("derivative", *args, "--wrt", "x,y,y")
    assert doc["derivative"]["order"] == 3
    [block] = doc["derivative"]["blocks"]
    assert block["wrt"] == ["x", "y", "y"]
    assert block["value"] == pytest.approx(-np.sin(2.0), rel=1e-15)
    # --order may repeat the count; repeated --wrt options concatenate
    same = run_json("derivative", *args, "--wrt", "x", "--wrt", "y,y", "--order", "3")
    assert same == doc


def test_shape_is_the_targets_shapes_concatenated():
    block = run_json("derivative", "-e", "sum(sum(x * x * x) * y)", "--at", "x=[1, 2]", "--at",
                     "y=[[1, 2, 3]]", "--wrt", "x,y,x")["derivative"]["blocks"][0]  # fmt: skip
    assert block["shape"] == [2, 1, 3, 2]
    # f = sum(x^3) * sum(y): d/dx[k] d/dy[0, j] d/dx[i] f = 6 x[i] if i == k, for every j
    want = np.zeros((2, 1, 3, 2))
    for i in range(2):
        want[i, 0, :, i] = 6 * (i + 1)
    assert np.array_equal(block["value"], want)


def test_default_targets_are_every_float_input(tmp_path):
    path = write(
        tmp_path,
        "inputs:\n  x: 0.5\n  n: {value: 2, dtype: int32}\n  c: {value: 3.0, trainable: false}\n"
        "graph:\n  f: x * x * x * c + cast(n, dtype='float64') * x\n",
    )
    doc = run_json("derivative", path, "--order", "3")
    assert [b["wrt"] for b in doc["derivative"]["blocks"]] == [["x", "x", "x"]]
    assert doc["derivative"]["blocks"][0]["value"] == 18.0


def test_unconnected_zero_gives_zeros_and_a_connected_zero_stays_zero():
    args = ["-e", "sum(x * x * y)", "--at", "x=[1, 2]", "--at", "y=[3, 4]", "--wrt", "x,x,x"]
    none = run_json("derivative", *args)["derivative"]["blocks"][0]
    assert (none["value"], none["status"]) == (None, "unconnected")
    zero = run_json("derivative", *args, "--unconnected", "zero")
    assert zero["unconnected"] == "zero"
    block = zero["derivative"]["blocks"][0]
    assert block["status"] == "unconnected" and np.array_equal(block["value"], np.zeros((2,) * 3))
    relu = run_json("derivative", "-e", "sum(relu(x))", "--at", "x=[1, -1]", "--order", "4")
    block = relu["derivative"]["blocks"][0]
    assert block["status"] == "connected" and np.array_equal(block["value"], np.zeros((2,) * 4))


def test_plain_and_table_formats():
    res = invoke("derivative", spec("tutorial_z.yaml"), "--order", "3", "--format", "plain")
    # z = x**2 + yx - 3y: pow's third derivative 2 * 1 * 0 * x**-1 is a connected zero (as
    # TensorFlow's Pow gradient gives it); dz/dy = x - 3 has no y: None
    assert (res.code, res.stdout) == (0, "derivative\tx\tx\tx\t0\nderivative\ty\ty\ty\tNone\n")
    res = invoke("derivative", "-e", "x**4", "--at", "x=2", "--order", "3", "--format", "plain")
    assert (res.code, res.stdout) == (0, "derivative\tx\tx\tx\t48\n")
    res = invoke("derivative", "-e", "sum(x**4)", "--at", "x=[1, 2]", "--wrt", "x,x,x",
                 "--format", "table")  # fmt: skip
    assert res.code == 0
    assert "derivative of order 3" in res.stdout and "x, x, x" in res.stdout
    assert "(2, 2, 2)" in res.stdout and "connected" in res.stdout
    res = invoke("derivative", "-e", "x*y", "--at", "x=1", "--at", "y=2", "--wrt", "x,x",
                 "--format", "table")  # fmt: skip
    assert "unconnected: no differentiable path" in res.stdout


def test_save_writes_every_block(tmp_path):
    out = tmp_path / "d.npz"
    res = invoke("derivative", "-e", "sum(x**4) + y*y", "--at", "x=[1, 2]", "--at", "y=3",
                 "--order", "3", "--save", out, "--format", "json")  # fmt: skip
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["saved"] == str(out)
    blocks = doc["derivative"]["blocks"]
    assert blocks[0]["key"] == "derivative/x/x/x" and blocks[1]["key"] is None
    with np.load(out) as data:
        assert list(data["none"]) == ["y/y/y"]
        want = np.zeros((2, 2, 2))
        want[0, 0, 0], want[1, 1, 1] = 24.0, 48.0
        assert np.array_equal(data["derivative/x/x/x"], want)
    res = invoke("derivative", "-e", "x**4", "--at", "x=1", "--order", "3", "--save", out,
                 "--format", "plain")  # fmt: skip
    assert res.stdout == f"derivative\tx\tx\tx\t@{out}:derivative/x/x/x\n"


# --- errors --------------------------------------------------------------------------------


def test_order_out_of_range_is_exit_2():
    assert "5 is not in the range 1<=x<=4" in error(
        "derivative", "-e", "x", "--at", "x=1", "--order", "5"
    )
    assert "0 is not in the range" in error("derivative", "-e", "x", "--at", "x=1", "--order", "0")
    assert "at most 4" in error("derivative", "-e", "x", "--at", "x=1", "--wrt", "x,x,x,x,x")


def test_order_and_wrt_must_agree():
    msg = error("derivative", "-e", "x*y", "--at", "x=1", "--at", "y=2", "--wrt", "x,y",
                "--order", "3")  # fmt: skip
    assert "--order 3 needs 3 names in --wrt" in msg and "--wrt x,x,x" in msg
    assert "give --order N" in error("derivative", "-e", "x", "--at", "x=1")
    assert "--wrt needs at least one name" in error(
        "derivative", "-e", "x", "--at", "x=1", "--wrt", ","
    )


def test_non_float_target_is_exit_2(tmp_path):
    path = write(tmp_path, "inputs:\n  x: 1.0\n  n: {value: 2, dtype: int32}\n"
                 "graph:\n  f: x * x * cast(n, dtype='float64')\n")  # fmt: skip
    msg = error("derivative", path, "--wrt", "x,n,x")
    assert "derivative needs float targets, but 'n' is int32" in msg
    assert f"{path}:3:" in msg  # n's line
    assert "which is not an input" in error("derivative", path, "--wrt", "x,m,x")


def test_non_scalar_output_is_exit_2():
    msg = error("derivative", "-e", "x * x", "--at", "x=[1, 2]", "--order", "3")
    assert msg == (
        "gradcli: error: <expr>:1:1: derivative needs a scalar output, but 'f' has shape (2,); "
        "reduce it (e.g. sum(...)) or use `gradcli jacobian`\n"
    )


def test_over_the_limits_is_exit_2():
    # order 4 of 30 elements: 810,000 elements; 900 combinations of the first two targets'
    # elements, each one pass for the third's 30 seeds together
    args = ["-e", "sum(exp(x))", "--at", f"x={[0.5] * 30}", "--order", "4"]
    msg = error("--max-elements", "100000", "derivative", *args)
    assert "would have 810,000 elements" in msg and "--max-elements" in msg
    msg = error("--max-passes", "899", "derivative", *args)
    assert "takes 900 evaluation passes" in msg and "--max-passes" in msg
    assert invoke("--max-passes", "900", "derivative", *args).code == 0
    # one seed per pass when --max-bytes leaves no room for two: 27,000 passes
    msg = error("--max-bytes", "1200", "derivative", *args)
    assert "takes 27,000 evaluation passes" in msg
    msg = error("--max-work", "1000", "derivative", "-e", "sum(exp(x))", "--at", "x=[1, 2]",
                "--order", "3")  # fmt: skip
    assert "over the limit of 1,000" in msg and "--max-work" in msg


def test_tensorflow_code_is_refused_clearly(tmp_path):
    path = write(tmp_path, "import tensorflow as tf\nx = tf.Variable(1.0)\n", "m.py")
    assert "derivative applies to specs" in error("derivative", path, "--order", "3")
    assert "derivative applies to specs" in error("derivative", "-", "--lang", "tf", "--order", "3")


@pytest.mark.parametrize("extra", [["--format", "svg"], ["--order", "x"]])
def test_bad_options_are_exit_2(extra):
    res = invoke("derivative", "-e", "x", "--at", "x=1", *extra)
    assert res.code == 2


def test_table_cells_with_inf_are_not_read_as_markup():
    # Rich reads "[inf,  1.]" as a markup tag: the cell must be escaped (as hessian's)
    res = invoke("derivative", "-e", "sum(log(x))", "--at", "x=[0.0, 1.0]", "--order", "1",
                 "--format", "table")  # fmt: skip
    assert res.code == 0, res.stderr
    cells = [c.strip() for line in res.stdout.splitlines() for c in line.split("│")]
    assert "[inf,  1.]" in cells, res.stdout
