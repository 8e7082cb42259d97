"""--weights FILE.npz: Keras variables start from the user's arrays, keyed by Keras path.

The reference is keras_sequential_fixed's TensorFlow result: the same program with its
set_weights call removed and the same arrays given through --weights must give TensorFlow's
gradients (within the 4 ulps the reader's reference tests allow).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from gradcli.cli.main import cli

DATA = Path(__file__).parents[1] / "data"
SNIPPET = DATA / "tf_code" / "keras_sequential_fixed.py"
WEIGHTS = {
    "sequential/dense/kernel": np.array([[0.5, -0.5, 1.0], [0.25, 0.75, -1.0]]),
    "sequential/dense/bias": np.array([0.0, 0.1, -0.1]),
    "sequential/dense_1/kernel": np.array([[1.0], [-2.0], [0.5]]),
    "sequential/dense_1/bias": np.array([0.3]),
}


def gradcli(*args):
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in res.stdout + res.stderr
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture
def program(tmp_path) -> Path:
    text = SNIPPET.read_text()
    without = re.sub(r"model\.set_weights\(\[.*?\]\)\n", "", text, flags=re.S)
    assert without != text and "set_weights" not in without
    path = tmp_path / "model.py"
    path.write_text(without)
    return path


def save(tmp_path, arrays: dict) -> Path:
    path = tmp_path / "w.npz"
    np.savez(path, **arrays)
    return path


def test_weights_give_tensorflows_gradients(tmp_path, program):
    cases = json.loads((DATA / "tf_code_reference.json").read_text())["cases"]
    (case,) = [c for c in cases if c["id"] == "keras_sequential_fixed"]
    code, out, err = gradcli("eval", program, "--weights", save(tmp_path, WEIGHTS),
                             "--format", "json", "--check", "off")  # fmt: skip
    assert code == 0, err
    (call,) = json.loads(out)["calls"]
    for got, want in zip(call["gradients"], case["calls"][0]["result"], strict=True):
        assert got["dtype"] == want["dtype"] == "float32"
        # within the reader tests' 4 ulps (TensorFlow's float32 tanh kernel is its own)
        np.testing.assert_array_max_ulp(np.float32(got["value"]), np.float32(want["value"]), 4)
    assert [g["path"] for g in call["gradients"]] == list(WEIGHTS)


def test_without_weights_eval_refuses_numbers_from_gradclis_own_draws(tmp_path, program):
    # the initializers' numbers would be gradcli's generator's, not TensorFlow's: refused at
    # the line that drew them, naming --run (tfcode/drawn.py)
    code, out, err = gradcli("eval", program, "--format", "json", "--check", "off")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and f"{program}:9:" in err
    assert "numbers drawn at random at line 9" in err
    assert err.rstrip().endswith(f"gradcli eval --run {program} (needs TensorFlow)")


def test_a_shape_mismatch_names_the_key_and_both_shapes(tmp_path, program):
    arrays = {**WEIGHTS, "sequential/dense/kernel": np.zeros((3, 2))}
    code, _, err = gradcli("eval", program, "--weights", save(tmp_path, arrays))
    assert code == 2
    assert err.count("\n") == 1 and f"{program}:" in err
    assert "key 'sequential/dense/kernel' has shape (3, 2)" in err and "shape (2, 3)" in err


def test_a_key_naming_no_variable_is_an_error_listing_the_paths(tmp_path, program):
    code, _, err = gradcli("eval", program, "--weights", save(tmp_path, {"dense/kernl": 0.0}))
    assert code == 2 and err.count("\n") == 1
    assert "'dense/kernl' names no Keras variable" in err
    assert "sequential/dense/kernel, sequential/dense/bias" in err


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_bytes(b"\x80\x04not an archive"), "is not a .npz archive"),
    (lambda p: np.save(p.open("wb"), np.zeros(3)), "is not a .npz archive"),
    (lambda p: None, "cannot read"),
])  # fmt: skip
def test_bad_weight_files_are_one_line(tmp_path, program, make, message):
    path = tmp_path / "bad.npz"
    make(path)
    code, _, err = gradcli("eval", program, "--weights", path)
    assert code == 2 and message in err and err.count("\n") == 1


def test_weights_apply_to_tensorflow_code_only(tmp_path):
    code, _, err = gradcli("eval", "-e", "x * 2", "--weights", save(tmp_path, WEIGHTS))
    assert code == 2 and "--weights applies to TensorFlow code" in err


@pytest.mark.parametrize("command", ["explain", "check", "graph", "jacobian", "hessian"])
def test_every_command_on_code_takes_weights(tmp_path, program, command):
    code, _, err = gradcli(command, program, "--weights", save(tmp_path, {"x/y": 1.0}))
    assert code == 2 and "'x/y' names no Keras variable" in err
