"""--save FILE: results in NumPy's .npz format; the printed output says where they are."""

import json
import zipfile

import numpy as np
import pytest
from helpers import invoke, run_json, spec

# z = x * y + y * y at (2, 3), and u, which z does not use
SPEC = """inputs:
  x: 2.0
  y: [3.0, 4.0]
  u: [[1.0, 2.0]]
graph:
  z: x * y + y * y
wrt: [x, y, u]
"""


@pytest.fixture
def spec_file(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SPEC)
    return path


def load(path) -> dict:
    with np.load(path, allow_pickle=False) as npz:
        return {k: npz[k] for k in npz.files}


def test_eval_saves_outputs_and_gradients(spec_file, tmp_path):
    out = tmp_path / "r.npz"
    res = invoke("eval", spec_file, "--save", out, "--format", "json", "--check", "off")
    assert res.code == 0, res.stderr
    arrays = load(out)
    assert sorted(arrays) == ["gradients/x", "gradients/y", "none", "outputs/z"]
    y = np.array([3.0, 4.0])
    np.testing.assert_array_equal(arrays["outputs/z"], 2 * y + y * y)
    assert arrays["gradients/x"].shape == () and arrays["gradients/x"] == 7.0  # sum(y)
    np.testing.assert_array_equal(arrays["gradients/y"], 2 + 2 * y)
    assert arrays["none"].tolist() == ["u"] and arrays["none"].dtype.kind == "U"
    assert arrays["outputs/z"].dtype == np.float64


def test_eval_save_json_holds_no_values(spec_file, tmp_path):
    out = tmp_path / "r.npz"
    res = invoke("eval", spec_file, "--save", out, "--format", "json")
    assert res.code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["saved"] == str(out)
    assert doc["outputs"]["z"] == {"key": "outputs/z", "shape": [2], "dtype": "float64"}
    x = doc["gradients"]["x"]
    assert "value" not in x and x["key"] == "gradients/x" and x["shape"] == []
    assert doc["gradients"]["u"]["key"] is None and doc["gradients"]["u"]["status"] == "unconnected"
    assert doc["check"]["ok"] is True  # the check still runs; its arrays are in the file
    assert all(
        c["autodiff"] is None and c["reference"] is None for c in doc["check"]["inputs"].values()
    )


def test_eval_save_plain_points_at_the_arrays(spec_file, tmp_path):
    out = tmp_path / "r.npz"
    res = invoke("eval", spec_file, "--save", out, "--format", "plain")
    assert res.code == 0, res.stderr
    assert res.stdout.splitlines() == [
        f"output\tz\t@{out}:outputs/z",
        f"grad\tx\t@{out}:gradients/x",
        f"grad\ty\t@{out}:gradients/y",
        "grad\tu\tNone",
    ]


def test_eval_save_table_says_where(spec_file, tmp_path):
    out = tmp_path / "r.npz"
    res = invoke("eval", spec_file, "--save", out, "--format", "table", "--check", "off")
    assert res.code == 0, res.stderr
    assert res.stdout.rstrip().splitlines()[-1].startswith(f"saved to {out}: outputs/NAME")
    assert out.exists()


def test_unconnected_zero_saves_zeros(spec_file, tmp_path):
    out = tmp_path / "r.npz"
    res = invoke("eval", spec_file, "--save", out, "--unconnected", "zero", "--check", "off")
    assert res.code == 0, res.stderr
    arrays = load(out)
    assert arrays["none"].tolist() == []
    np.testing.assert_array_equal(arrays["gradients/u"], np.zeros((1, 2)))


def test_save_keeps_dtypes(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "inputs:\n  a: {value: [1, 2], dtype: float32}\n  n: {value: 3, dtype: int32}\n"
        "graph:\n  s: a * 2\n  c: n + 1\n  b: a > 1\noutputs: [s, c, b]\nwrt: [a]\n"
    )
    out = tmp_path / "r.npz"
    assert invoke("eval", path, "--save", out, "--check", "off").code == 0
    arrays = load(out)
    assert arrays["outputs/s"].dtype == np.float32 and arrays["outputs/s"].tolist() == [2, 4]
    assert arrays["outputs/c"].dtype == np.int32 and arrays["outputs/c"] == 4
    assert arrays["outputs/b"].dtype == np.bool_ and arrays["outputs/b"].tolist() == [False, True]
    assert arrays["gradients/a"].dtype == np.float32


def test_the_file_is_an_npz_even_without_the_suffix(spec_file, tmp_path):
    out = tmp_path / "results"
    assert invoke("eval", spec_file, "--save", out, "--check", "off").code == 0
    assert zipfile.is_zipfile(out) and not (tmp_path / "results.npz").exists()


def test_save_overwrites_a_file(spec_file, tmp_path):
    out = tmp_path / "r.npz"
    out.write_text("old")
    assert invoke("eval", spec_file, "--save", out, "--check", "off").code == 0
    assert "outputs/z" in load(out)


@pytest.mark.parametrize(
    ("target", "message"),
    [("dir", "it is a directory"), ("missing/r.npz", "does not exist")],
)
def test_unwritable_targets_are_refused_before_the_work(spec_file, tmp_path, target, message):
    (tmp_path / "dir").mkdir()
    res = invoke("eval", spec_file, "--save", tmp_path / target, "--check", "off")
    assert res.code == 2 and res.stdout == ""
    assert res.stderr.startswith("gradcli: error: --save ") and message in res.stderr
    assert len(res.stderr.splitlines()) == 1


def test_save_does_not_apply_to_points_or_tensorflow_code(spec_file, tmp_path):
    points = tmp_path / "p.jsonl"
    points.write_text('{"x": 1}\n')
    res = invoke("eval", spec_file, "--points", points, "--save", tmp_path / "r.npz")
    assert res.code == 2 and "--save does not apply to --points" in res.stderr
    program = tmp_path / "p.py"
    program.write_text("import tensorflow as tf\n")
    res = invoke("eval", program, "--save", tmp_path / "r.npz")
    assert res.code == 2 and "--save does not apply to TensorFlow code" in res.stderr
    assert not (tmp_path / "r.npz").exists()


def test_jacobian_save(tmp_path):
    out = tmp_path / "j.npz"
    doc = run_json(
        "jacobian", "-e", "x * y", "--at", "x=[1, 2]", "--at", "y=3", "--save", out
    )  # fmt: skip
    assert doc["saved"] == str(out)
    assert doc["jacobian"]["f"]["x"] == {
        "key": "jacobian/f/x",
        "shape": [2, 2],
        "dtype": "float64",
        "status": "connected",
    }
    arrays = load(out)
    np.testing.assert_array_equal(arrays["jacobian/f/x"], 3 * np.eye(2))
    np.testing.assert_array_equal(arrays["jacobian/f/y"], [1.0, 2.0])
    assert arrays["none"].tolist() == []


def test_hessian_save_lists_none_blocks(tmp_path):
    path = tmp_path / "h.yaml"
    path.write_text("inputs:\n  x: [1.0, 2.0]\n  y: 3.0\ngraph:\n  f: sum(x * x * x) + y\n")
    out = tmp_path / "h.npz"
    res = invoke("hessian", path, "--save", out, "--format", "plain")
    assert res.code == 0, res.stderr
    assert res.stdout.splitlines() == [
        f"hessian\tx\tx\t@{out}:hessian/x/x",
        "hessian\tx\ty\tNone",
        "hessian\ty\tx\tNone",
        "hessian\ty\ty\tNone",
    ]
    arrays = load(out)
    np.testing.assert_array_equal(arrays["hessian/x/x"], np.diag([6.0, 12.0]))
    assert arrays["none"].tolist() == ["x/y", "y/x", "y/y"]


def test_eval_without_save_is_unchanged():
    # the quadratic at 2: 10 and 7, as the README's tour shows
    res = invoke("eval", spec("quadratic.yaml"), "--format", "plain")
    assert res.stdout.splitlines() == ["output\ty\t10", "grad\tx\t7"]
