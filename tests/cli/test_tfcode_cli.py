"""The TensorFlow reader through the CLI: eval's calls JSON, plain and table output, explain's
call and line, --lang tf on stdin, safety (nothing runs), and options that do not apply."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gradcli.cli.main import cli

CODE = Path(__file__).parents[1] / "data" / "tf_code"


def gradcli(*args, input=None):
    res = CliRunner().invoke(cli, [str(a) for a in args], input=input, catch_exceptions=False)
    assert "Traceback" not in res.stdout + res.stderr
    return res.exit_code, res.stdout, res.stderr


def test_eval_json_reports_every_call_in_order():
    code, out, _ = gradcli("eval", CODE / "unconnected_zero_string.py", "--format", "json")
    assert code == 1  # a None gradient: exit 1, as with --run
    doc = json.loads(out)
    assert [c["line"] for c in doc["calls"]] == [14, 15]
    first, second = doc["calls"]
    assert first["target"] == "loss" and first["sources"] == ["w", "unused"]
    assert [first["unconnected"], second["unconnected"]] == ["none", "zero"]
    w, unused = first["gradients"]
    assert w["name"] == "w" and w["value"] == [2.0, 4.0] and w["dtype"] == "float32"
    assert w["status"] == "connected" and w["causes"] == []
    assert unused["value"] is None and unused["status"] == "unconnected"
    assert unused["causes"][0]["kind"] == "no_path" and unused["reason"]
    assert second["gradients"][1]["value"] == [[0.0, 0.0, 0.0]]
    assert set(first) >= {"line", "target", "sources", "unconnected", "gradients"}
    assert set(w) == {"name", "value", "shape", "dtype", "status", "reason", "causes"}


def test_eval_json_names_code_level_causes():
    _, out, _ = gradcli("eval", CODE / "leaves_tape_numpy.py", "--format", "json", "--check", "off")
    call = json.loads(out)["calls"][0]
    for g in call["gradients"]:
        cause = g["causes"][0]
        assert cause["kind"] == "leaves_tape" and cause["line"] == 13
        assert ".numpy()" in cause["detail"] and "numpy" in g["reason"]


def test_dict_sources_come_back_in_sorted_key_order():
    _, out, _ = gradcli("eval", CODE / "sources_dict.py", "--format", "json")
    call = json.loads(out)["calls"][0]
    assert call["sources"] == ["params['b']", "params['w']"]
    assert [g["value"] for g in call["gradients"]] == [-9.0, [-27.0, -36.0]]


def test_plain_groups_by_call_and_a_tensorflow_error_is_reported_with_exit_1():
    code, out, _ = gradcli("eval", CODE / "tape_reused_nonpersistent.py", "--format", "plain")
    assert code == 1
    lines = out.splitlines()
    assert lines[:2] == ["call\t0\t11\tz", "grad\tx\t108"]
    assert lines[2] == "call\t1\t12\ty"
    assert lines[3].startswith("error\t1\tRuntimeError: A non-persistent GradientTape")


def test_cond_python_branch_gets_the_tensor_answer_and_a_note():
    code, out, _ = gradcli("eval", CODE / "seed_001_0.py", "--format", "json", "--check", "off")
    assert code == 1
    second = json.loads(out)["calls"][1]
    assert second["error"]["type"] == "TypeError"
    assert [g["value"] for g in second["gradients"]] == [0.0, 0.0]
    assert "tf.constant(0.0)" in second["notes"][0]


def test_table_output_has_a_header_per_call():
    code, out, _ = gradcli("eval", CODE / "tape_persistent_twice.py", "--format", "table")
    assert code == 0
    assert "call 0, line 12" in out and "call 1, line 13" in out


def test_explain_pairs_carry_call_and_line():
    code, out, _ = gradcli("explain", CODE / "watch_accessed_false_explicit.py", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    pair = next(p for p in doc["pairs"] if p["input"] == "b")
    assert pair["call"] == 0 and pair["line"] == doc["calls"][0]["line"]
    assert pair["causes"][0]["kind"] == "not_watched" and pair["causes"][0]["line"] == 10
    assert gradcli("explain", CODE / "seed_002_0.py", "-q")[0] == 1  # dz/dy is zero


def test_explain_table_shows_the_line():
    code, out, _ = gradcli("explain", CODE / "outside_tape_loss_after.py")
    assert code == 1
    assert "outside_tape" in out and "line 12" in out


def test_lang_tf_reads_stdin():
    text = (CODE / "seed_002_0.py").read_text()
    code, out, _ = gradcli("eval", "-", "--lang", "tf", "--format", "plain", input=text)
    assert code == 1 and out.splitlines()[1:] == ["grad\tx\t8", "grad\ty\t0"]  # dz/dy = 0


@pytest.mark.parametrize("option", [("--at", "x=1"), ("--wrt", "x"), ("--unconnected", "zero")])
def test_spec_options_do_not_apply_to_code(option):
    code, _, err = gradcli("eval", CODE / "seed_002_0.py", *option)
    assert code == 2 and option[0] in err and "TensorFlow code" in err


def test_check_runs_per_call_and_finds_a_custom_gradient_unlike_its_body():
    code, out, _ = gradcli("check", CODE / "seed_002_2.py", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    [call] = doc["calls"]
    assert call["call"] == 0 and call["line"] == 19 and call["sources"] == ["x"]
    assert call["inputs"]["x"]["verdict"] == "agree"  # the chain uses the gradient as given
    assert not call["customs"][0]["ok"] and "2x" in call["customs"][0]["message"]
    code, out, _ = gradcli("check", CODE / "custom_gradient_log1pexp.py")
    assert code == 0 and "call 0, line 22: gradient(y, x)" in out


def test_check_says_a_gradient_that_clips_dy_cannot_be_checked():
    _, out, _ = gradcli("check", CODE / "custom_gradient_clip.py", "--format", "json")
    check = json.loads(out)["calls"][0]["inputs"]["x"]
    assert check["verdict"] == "skipped" and "not linear" in check["note"]


def test_jacobian_and_hessian_per_call_and_one_call_with_call_k():
    code, out, _ = gradcli("jacobian", CODE / "unconnected_zero_string.py", "--format", "plain")
    assert code == 0
    assert out.splitlines()[0] == "call\t0\t14\tloss" and "call\t1\t15\tloss" in out
    code, out, _ = gradcli(
        "hessian", CODE / "custom_gradient_second_order.py", "--call", "0", "--format", "json"
    )
    doc = json.loads(out)
    assert code == 0 and [c["call"] for c in doc["calls"]] == [0]
    assert doc["calls"][0]["hessian"]["x"]["x"]["value"] == [[0.25, 0.0], [0.0, 0.1049935854035065]]


def test_hessian_skips_non_scalar_targets_unless_asked_for_one():
    code, _, err = gradcli("hessian", CODE / "jacobian.py", "--format", "plain")
    assert code == 2 and "no gradient call" in err and "scalar" in err
    code, _, err = gradcli("hessian", CODE / "jacobian.py", "--call", "1")
    assert code == 2 and "hessian needs a scalar output, but 'z' has shape (3,)" in err


def test_graph_per_call_and_dot_needs_one_call():
    code, out, _ = gradcli("graph", CODE / "unconnected_zero_string.py")
    assert code == 0 and out.count("call ") == 2 and "call 1, line 15" in out
    code, _, err = gradcli("graph", CODE / "unconnected_zero_string.py", "--format", "dot")
    assert code == 2 and "--call K" in err
    code, out, _ = gradcli("graph", CODE / "unconnected_zero_string.py", "--format", "dot",
                           "--call", "1")  # fmt: skip
    assert code == 0 and out.startswith("digraph")
    code, out, _ = gradcli("graph", CODE / "custom_gradient_clip.py", "--format", "json")
    [call] = json.loads(out)["calls"]
    assert call["line"] == 20 and any(n["op"] == "custom" for n in call["nodes"])


def test_call_k_out_of_range_and_on_a_spec_are_errors():
    code, _, err = gradcli("eval", CODE / "seed_002_0.py", "--call", "3")
    assert code == 2 and "--call 3: the program makes 1 gradient call" in err
    code, _, err = gradcli("jacobian", "-e", "x ** 2", "--at", "x=1", "--call", "0")
    assert code == 2 and "--call applies to TensorFlow code" in err
    code, out, _ = gradcli("eval", CODE / "unconnected_zero_string.py", "--call", "1",
                           "--format", "plain")  # fmt: skip
    assert code == 1 and out.splitlines()[0] == "call\t1\t15\tloss"  # a None gradient


def test_syntax_error_is_positioned():
    code, _, err = gradcli("eval", "-", "--lang", "tf", input="x = (1,\n")
    assert code == 2 and "<stdin>:1:" in err and "syntax error" in err


EVIL = """import os
import subprocess
import tensorflow as tf
os.system("touch {canary}")
subprocess.run(["touch", "{canary}"])
__import__("os").system("touch {canary}")
exec("open('{canary}', 'w')")
eval("1")
open("{canary}", "w")
x = tf.Variable(1.0)
"""


def test_code_that_would_run_anything_runs_nothing(tmp_path):
    canary = tmp_path / "canary"
    program = tmp_path / "evil.py"
    program.write_text(EVIL.format(canary=canary))
    res = subprocess.run(
        [sys.executable, "-m", "gradcli", "eval", str(program)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert res.returncode == 2
    assert not canary.exists()
    assert "Traceback" not in res.stderr and res.stderr.count("\n") == 1
    for line, construct in [(1, "import os"), (2, "import subprocess"), (4, "os.system"),
                            (5, "subprocess.run"), (6, "__import__"), (7, "exec"),
                            (8, "eval"), (9, "open")]:  # fmt: skip
        assert f"line {line}:" in res.stderr and construct in res.stderr, construct
    assert f"{program}:1:1:" in res.stderr  # the first refusal's position


def test_every_refusal_is_listed_at_once(tmp_path):
    program = tmp_path / "many.py"
    program.write_text(
        "import tensorflow as tf\nx = tf.Variable(1.0)\ny = tf.signal.stft(x)\n"
        "class A(tf.keras.layers.Conv3DTranspose):\n    pass\n"
        "try:\n    pass\nexcept ValueError:\n    pass\n"
    )
    code, _, err = gradcli("eval", program)
    assert code == 2
    assert "line 3:5: tf.signal.stft is not supported" in err
    assert "line 4:9: a class deriving from tf.keras.layers.Conv3DTranspose" in err
    assert "line 6:1: try/except" in err


def test_jacobian_calls_have_tensorflows_shapes_and_none_blocks():
    code, out, _ = gradcli("eval", CODE / "jacobian.py", "--format", "json")
    assert code == 1  # the unused source's block is None
    calls = json.loads(out)["calls"]
    assert [c["kind"] for c in calls] == ["jacobian"] * 3
    x, unused = calls[1]["gradients"]
    assert x["shape"] == [3, 3] and unused["value"] is None and unused["status"] == "unconnected"
    assert calls[2]["gradients"][1]["value"] == [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    code, out, _ = gradcli("eval", CODE / "batch_jacobian.py", "--format", "table")
    assert code == 0 and "call 0, line 14: batch_jacobian(y, x)" in out and "(2, 2, 3)" in out


def test_tf_function_is_read_as_the_function_it_wraps_with_a_note():
    code, out, _ = gradcli("eval", CODE / "tf_function_call_form.py", "--format", "json")
    assert code == 1  # d loss/d unused is None
    doc = json.loads(out)
    [call] = doc["calls"]
    assert doc["error"] is None
    assert any("read as the Python function @tf.function wraps" in n for n in call["notes"])
    code, out, _ = gradcli("eval", CODE / "tf_function_train_step.py", "--format", "plain")
    assert code == 0 and [ln.split("\t")[2] for ln in out.splitlines() if ln[:4] == "call"] == [
        "20",  # traced once for three calls
        "31",
    ]


def test_a_tensorflow_error_after_the_calls_is_reported_after_them_with_exit_1():
    code, out, _ = gradcli("eval", CODE / "numpy_in_tf_function.py", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert len(doc["calls"]) == 1 and doc["calls"][0]["error"] is None
    error = doc["error"]
    assert error["type"] == "AttributeError" and error["line"] == 16
    assert error["message"] == "'SymbolicTensor' object has no attribute 'numpy'"
    assert "leaves_tape" in error["note"]
    code, out, _ = gradcli("explain", CODE / "numpy_in_tf_function.py")
    assert code == 1 and "TensorFlow raises at line 16: AttributeError" in out


@pytest.mark.parametrize("command", ["eval", "explain"])
def test_table_headings_keep_brackets_in_source_names(command):
    # Rich would read "[k]" in "gradient(y, ws[k])" as a markup tag and drop it
    code = (
        "import tensorflow as tf\n"
        "ws = {'b': tf.Variable([0.0, 1.0], dtype=tf.float64)}\n"
        "k = 'b'\n"
        "with tf.GradientTape() as t:\n"
        "    y = tf.reduce_sum(tf.math.log(ws[k]))\n"
        "g = t.gradient(y, ws[k])\n"
    )
    status, out, _ = gradcli(command, "--lang", "tf", "-", "--format", "table", input=code)
    assert status in (0, 1)
    assert "call 0, line 6: gradient(y, ws[k])" in out
    assert "dy/dws[k]" in out


def test_a_refusal_of_many_constructs_counts_the_rest_and_keeps_the_run_hint(tmp_path):
    deep = tmp_path / ("d" * 120) / ("e" * 120)
    deep.mkdir(parents=True)
    program = deep / "many.py"
    body = "".join(f"y{k} = tf.signal.stft(x)\n" for k in range(60))
    program.write_text("import tensorflow as tf\nx = tf.Variable(1.0)\n" + body)
    code, _, err = gradcli("eval", program)
    assert code == 2 and err.count("\n") == 1
    assert err.rstrip().endswith(f"gradcli explain --run {program} (needs TensorFlow)")
    assert "60 constructs" in err and "line 3:6: tf.signal.stft is not supported" in err
    listed = err.count("tf.signal.stft is not supported")
    assert 1 < listed < 60 and f"; and {60 - listed} more;" in err


@pytest.mark.parametrize("traced", [True, False])
def test_a_cond_on_a_tensor_in_a_graph_is_refused(tmp_path, traced):
    # traced (cond_v2's If) and TF1 graphs give the untaken branch's inputs zeros, not
    # the None an eager tf.cond gives: the reader refuses and names --run
    program = tmp_path / "cond.py"
    graph = "" if traced else "tf.compat.v1.disable_eager_execution()\n"
    head = "import tensorflow as tf\n" + graph
    body = (
        "v = tf.Variable(1.0)\nu = tf.Variable(2.0)\n"
        "@tf.function\ndef f(a):\n    with tf.GradientTape() as t:\n"
        "        out = tf.cond(a, lambda: v * 2.0, lambda: u * 3.0)\n"
        "    return t.gradient(out, [v, u])\nprint(f(tf.constant(True)))\n"
    )
    program.write_text(head + body)
    code, _, err = gradcli("eval", program)
    assert code == 2 and "tf.cond on a tensor in" in err
    assert f"gradcli explain --run {program} (needs TensorFlow)" in err
