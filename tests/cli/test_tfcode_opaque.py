"""Code gradcli does not read, through the CLI: opaque names from unread modules, their
gradients "unknown beyond line N" (status unknown, exit 1), and the refusals where such a
value must be known (docs/reading-code.md, "Code gradcli does not read")."""

from __future__ import annotations

import json

from click.testing import CliRunner

from gradcli.cli.main import cli

PROGRAM = """import tensorflow as tf
import matplotlib.pyplot as plt
from mymodel import build_head

w = tf.Variable(2.0)
b = tf.Variable(1.0)
head = build_head(3)

with tf.GradientTape(persistent=True) as tape:
    h = w * 3.0 + b
    out = head(h)
    loss = tf.reduce_sum(out) * w
    plain = h * h

print(tape.gradient(loss, [w, b]))
print(tape.gradient(plain, [w, b]))
plt.plot([1, 2])
"""


def gradcli(*args):
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def write(tmp_path, text: str):
    path = tmp_path / "train.py"
    path.write_text(text)
    return path


def test_a_gradient_through_an_unread_function_is_unknown_beyond_its_line(tmp_path):
    code, out, _ = gradcli("eval", write(tmp_path, PROGRAM), "--format", "json")
    assert code == 1  # not a whole answer
    unknown, plain = json.loads(out)["calls"]
    assert unknown["unknown"]["line"] == 11 and unknown["unknown"]["what"] == "head(h)"
    for g in unknown["gradients"]:
        assert g["status"] == "unknown" and g["value"] is None
        assert g["reason"] == "unknown beyond line 11: head(h) is code gradcli does not read"
        assert [c["kind"] for c in g["causes"]] == ["unknown"] and g["causes"][0]["line"] == 11
    # the other call never crosses it: d(h^2)/dw = 2h * 3, d/db = 2h with h = 7
    assert plain["unknown"] is None
    assert [g["value"] for g in plain["gradients"]] == [42.0, 14.0]
    code, out, _ = gradcli("eval", write(tmp_path, PROGRAM), "--format", "plain")
    assert code == 1 and "grad\tw\tunknown" in out
    assert "unknown\t0\tunknown beyond line 11: head(h)" in out


def test_explain_says_unknown_and_never_connected(tmp_path):
    code, out, _ = gradcli("explain", write(tmp_path, PROGRAM))
    assert code == 1
    assert "dloss/dw: unknown beyond line 11" in out and "dloss/db: unknown beyond line 11" in out
    code, out, _ = gradcli("explain", write(tmp_path, PROGRAM), "--format", "json")
    doc = json.loads(out)
    assert doc["calls"][0]["unknown"]["line"] == 11
    assert {p["call"] for p in doc["pairs"]} == {1}  # no connected/unconnected pair for call 0


def test_check_on_an_unknown_call_says_why_there_is_nothing_to_check(tmp_path):
    code, _, err = gradcli("check", write(tmp_path, PROGRAM), "--call", "0")
    assert code == 2 and "unknown beyond line 11" in err


def test_a_value_from_unread_code_that_must_be_known_is_refused_at_its_line(tmp_path):
    text = (
        "import tensorflow as tf\nimport mymodel\n"
        "n = mymodel.steps()\n"
        "if n > 2:\n    pass\n"
        "for k in mymodel.items:\n    pass\n"
        "while n:\n    pass\n"
        "v = tf.Variable(1.0)\nv.assign(mymodel.value)\n"
    )
    code, _, err = gradcli("eval", write(tmp_path, text))
    assert code == 2
    assert "4 constructs" in err
    assert "line 4:4: a condition on mymodel.steps() (line 3)" in err
    assert "line 6:10: iterating over mymodel.items (line 2)" in err
    assert "line 8:1: a while loop whose condition uses mymodel.steps() (line 3)" in err
    assert "line 11:1: assigning mymodel.value (line 2) to a variable" in err


def test_modules_that_run_processes_stay_refused_and_star_imports_too(tmp_path):
    text = "import tensorflow as tf\nimport shutil\nfrom mymodel import *\nfrom os import path\n"
    code, _, err = gradcli("eval", write(tmp_path, text))
    assert code == 2
    assert "line 2:1: import shutil: a module that runs processes" in err
    assert "line 3:1: from mymodel import *" in err and "line 4:1: from os import ..." in err


def test_opaque_values_flow_through_helpers_containers_and_jacobians(tmp_path):
    text = (
        "import tensorflow as tf\nfrom .layers import scale\n"
        "x = tf.Variable([1.0, 2.0])\n"
        "def f(v):\n    table = {scale: 1}\n    return v * table\n"
        "with tf.GradientTape(persistent=True) as tape:\n"
        "    y = f(x)\n"
        "    z = x * 2.0\n"
        "j = tape.jacobian(y, x)\n"
        "g = tape.gradient(z, x)\n"
    )
    code, out, _ = gradcli("eval", write(tmp_path, text), "--format", "json")
    assert code == 1
    jac, grad = json.loads(out)["calls"]
    assert jac["kind"] == "jacobian" and jac["unknown"]["line"] == 2
    assert jac["unknown"]["what"] == ".layers.scale"
    assert grad["gradients"][0]["value"] == [2.0, 2.0]
