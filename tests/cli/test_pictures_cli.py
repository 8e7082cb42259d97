"""`graph --format svg` and `explain --html FILE` through the command line (a real
subprocess each): exit statuses, the one-line errors, the cut in the picture, the text
formats unchanged beside them, and a 5,000-node chain staying fast and small."""

from __future__ import annotations

import html
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browser import needs_dot

ROOT = Path(__file__).resolve().parent.parent.parent
SPECS = ROOT / "specs"
TF_CODE = ROOT / "tests" / "data" / "tf_code"
DETACHED = """\
import torch
w = torch.ones(2, requires_grad=True)
h = (w * 3).detach()
b = torch.ones(2, requires_grad=True)
loss = (h * b).sum()
loss.backward()
"""


def gradcli(*args, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gradcli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr
    return r.stderr


def empty_path(tmp_path: Path) -> dict:
    """An environment whose PATH holds no dot."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    return {"PATH": str(folder)}


@needs_dot
def test_graph_svg_draws_the_cut_red_with_its_kind_and_line(tmp_path):
    r = gradcli("graph", SPECS / "stop_gradient.yaml", "--format", "svg")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("<?xml") and r.stdout.rstrip().endswith("</svg>")
    text = html.unescape(r.stdout)
    assert 'class="edge cut cut-stop_gradient"' in text and "stop_gradient, line 6" in text
    assert 'stroke="#dc2626"' in r.stdout
    out = tmp_path / "g.svg"
    assert (
        gradcli("graph", SPECS / "stop_gradient.yaml", "--format", "svg", "-o", out).returncode == 0
    )
    assert out.read_text() == r.stdout


@needs_dot
def test_graph_svg_of_tensorflow_code_names_the_tape_boundary():
    r = gradcli("graph", TF_CODE / "not_watched_constant.py", "--format", "svg", "--grad")
    assert r.returncode == 0, r.stderr
    assert 'class="edge cut cut-not_watched"' in html.unescape(r.stdout)


def test_graph_svg_without_dot_says_how_to_install_it(tmp_path):
    err = one_line_error(gradcli("graph", SPECS / "stop_gradient.yaml", "--format", "svg",
                                 env=empty_path(tmp_path)))  # fmt: skip
    assert "apt install graphviz" in err and "dot" in err


def test_explain_html_without_dot_is_refused_before_anything_runs(tmp_path):
    page = tmp_path / "r.html"
    err = one_line_error(gradcli("explain", SPECS / "stop_gradient.yaml", "--html", page,
                                 env=empty_path(tmp_path)))  # fmt: skip
    assert "apt install graphviz" in err and not page.exists()


@pytest.mark.skipif(os.name != "posix", reason="a shell script stands in for dot")
def test_a_failing_dot_is_gradclis_trouble_message(tmp_path):
    env = empty_path(tmp_path)
    fake = tmp_path / "bin" / "dot"
    fake.write_text("#!/bin/sh\necho 'Error: out of memory' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    err = one_line_error(gradcli("graph", SPECS / "stop_gradient.yaml", "--format", "svg",
                                 env=env))  # fmt: skip
    assert "dot failed (exit status 3): Error: out of memory" in err


@pytest.mark.parametrize("where", ["folder", "missing/r.html"])
def test_explain_html_to_an_unwritable_path_is_exit_2(tmp_path, where):
    target = tmp_path / where
    if where == "folder":
        target.mkdir()
    err = one_line_error(gradcli("explain", SPECS / "stop_gradient.yaml", "--html", target))
    assert f"cannot write {target}" in err


@needs_dot
@pytest.mark.parametrize(
    "args",
    [
        [SPECS / "two_cuts.yaml"],
        [SPECS / "dead_relu.yaml"],
        ["-e", "stop_gradient(x) * y", "--at", "x=2", "--at", "y=3"],
        [TF_CODE / "not_watched_constant.py"],
    ],
    ids=["spec", "zeros", "expression", "tf_code"],
)
def test_explain_html_writes_the_page_and_leaves_stdout_as_it_was(tmp_path, args):
    plain = gradcli("explain", *args, "--format", "json")
    page = tmp_path / "report.html"
    r = gradcli("explain", *args, "--format", "json", "--html", page)
    assert (r.returncode, r.stdout) == (plain.returncode, plain.stdout) == (1, plain.stdout)
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text
    assert "<script" not in text.lower() and "http" not in text


@needs_dot
def test_the_page_quotes_the_cause_its_line_and_source(tmp_path):
    page = tmp_path / "r.html"
    assert gradcli("explain", SPECS / "stop_gradient.yaml", "-q", "--html", page).returncode == 1
    text = page.read_text()
    assert '<span class="kind">stop_gradient</span>, line 6:' in text
    assert "<pre>z: stop_gradient(x) * y</pre>" in text
    assert "dz/dx: <span" in text and "1 None (unconnected)" in text
    assert 'class="edge cut cut&#45;stop_gradient"' in text


@needs_dot
def test_a_5000_node_chain_stays_fast_and_small(tmp_path):
    lines = ["inputs:", "  x: 0.5", "graph:", "  a1: sin(x)"]
    lines += [
        f"  a{i}: {'stop_gradient' if i == 2500 else 'sin'}(a{i - 1})" for i in range(2, 5001)
    ]
    spec = tmp_path / "chain.yaml"
    spec.write_text("\n".join([*lines, "outputs: [a5000]", ""]))
    page = tmp_path / "chain.html"
    start = time.perf_counter()
    r = gradcli("explain", spec, "-q", "--html", page)
    took = time.perf_counter() - start
    assert r.returncode == 1, r.stderr
    text = page.read_text()
    assert len(text) < 60_000 and took < 60
    assert "more nodes on these paths" in text and "stop_gradient, line 2503" in text


@needs_dot
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="--run runs real PyTorch")
def test_the_run_mode_draws_the_detach(tmp_path):
    (tmp_path / "train.py").write_text(DETACHED)
    r = gradcli("graph", "--run", "train.py", "--format", "svg", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'class="edge cut cut-detach"' in html.unescape(r.stdout)
    r = gradcli("explain", "--run", "train.py", "-q", "--html", "r.html", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    text = (tmp_path / "r.html").read_text()
    assert '<span class="kind">detach</span>, line 3' in text and "fix: " in text
    assert "<pre>h = (w * 3).detach()</pre>" in text and "cut&#45;detach" in text


def test_svg_is_refused_for_several_tensorflow_calls_without_call(tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (apt install graphviz)")
    source = tmp_path / "two.py"
    source.write_text(
        "import tensorflow as tf\nx = tf.Variable(1.0)\n"
        "with tf.GradientTape(persistent=True) as t:\n    y = x * x\n"
        "a = t.gradient(y, x)\nb = t.gradient(y, x)\n"
    )
    err = one_line_error(gradcli("graph", source, "--format", "svg"))
    assert "--call K" in err


DOCUMENTED = [
    ("explain", "specs/two_cuts.yaml", "--html", "report.html"),
    ("graph", "specs/mlp.yaml", "--grad", "--format", "svg", "-o", "mlp.svg"),
]


@needs_dot
@pytest.mark.parametrize("args", DOCUMENTED, ids=["explain", "graph"])
def test_the_documented_commands_write_their_files(tmp_path, args):
    assert f"gradcli {' '.join(args)}" in (ROOT / "docs" / "commands.md").read_text()
    (tmp_path / "specs").symlink_to(SPECS)
    r = gradcli(*args, cwd=tmp_path)
    assert r.returncode == (1 if args[0] == "explain" else 0), r.stderr
    written = (tmp_path / args[-1]).read_text()
    assert "<svg" in written
    if args[0] == "explain":
        assert "stop_gradient, line 6" in written and "non_differentiable, line 7" in written


def test_the_docs_show_the_picture():
    picture = ROOT / "docs" / "img" / "explain-html.png"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "](img/explain-html.png)" in (ROOT / "docs" / "commands.md").read_text()


@needs_dot
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="--run runs TensorFlow")
def test_the_tensorflow_run_mode_writes_its_page(tmp_path):
    script = ROOT / "tests" / "data" / "tf_run" / "stop_gradient.py"
    page = tmp_path / "r.html"
    r = gradcli("explain", "--run", script, "-q", "--html", page)
    assert r.returncode == 1, r.stderr
    text = page.read_text()
    assert '<span class="kind">stop_gradient</span>' in text and "<svg" in text
    assert "cut&#45;stop_gradient" in text


def test_explain_html_never_overwrites_its_input(tmp_path):
    spec = tmp_path / "model.yaml"
    spec.write_text((SPECS / "stop_gradient.yaml").read_text())
    err = one_line_error(gradcli("explain", spec, "--html", spec))
    assert "would overwrite the input" in err
    assert spec.read_text() == (SPECS / "stop_gradient.yaml").read_text()


@needs_dot
def test_svg_is_utf8_whatever_the_terminals_encoding(tmp_path):
    source = tmp_path / "greek.py"
    source.write_text(
        "import tensorflow as tf\n\u03b1 = tf.Variable(2.0)\n"
        "with tf.GradientTape() as t:\n    y = tf.stop_gradient(\u03b1) * \u03b1\n"
        "g = t.gradient(y, \u03b1)\n"
    )
    r = subprocess.run([sys.executable, "-m", "gradcli", "graph", str(source), "--format", "svg"],
                       capture_output=True, timeout=240,
                       env={**os.environ, "PYTHONIOENCODING": "ascii"})  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "\u03b1" in r.stdout.decode("utf-8")


@needs_dot
def test_a_page_with_nothing_to_explain_says_so(tmp_path):
    page = tmp_path / "ok.html"
    assert gradcli("explain", SPECS / "two_inputs.yaml", "-q", "--html", page).returncode == 0
    text = page.read_text()
    assert "every gradient is connected and nonzero" in text and "<svg" not in text
    assert "connected, nonzero everywhere: dz/dx, dz/dy" in text


@needs_dot
def test_graph_svg_with_grad_says_what_each_gradient_is():
    r = gradcli("graph", SPECS / "stop_gradient.yaml", "--grad", "--format", "svg")
    assert r.returncode == 0, r.stderr
    text = html.unescape(r.stdout)
    assert "gradient w.r.t. x" in text and "None (unconnected)" in text
    assert 'class="node result"' in text and "gradient w.r.t. y" in text


@needs_dot
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="--run runs real PyTorch")
def test_an_error_the_script_raises_is_a_finding_with_its_cause(tmp_path):
    (tmp_path / "twice.py").write_text(
        "import torch\nw = torch.ones(2, requires_grad=True)\ny = (w * w).sum()\n"
        "y.backward()\ny.backward()\n"
    )
    r = gradcli("explain", "--run", "twice.py", "-q", "--html", "r.html", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    text = (tmp_path / "r.html").read_text()
    assert "<h3>PyTorch raises at line 5: RuntimeError" in text
    assert '<span class="kind">backward_twice</span>' in text
    assert "<li>1 error raised</li>" in text and "<li>1 connected and nonzero</li>" in text


@needs_dot
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="--run runs real PyTorch")
def test_the_run_modes_nan_origin_is_shaded_where_its_operation_ran(tmp_path):
    (tmp_path / "nan.py").write_text(
        "import torch\nw = torch.zeros(2, requires_grad=True)\nd = w.sqrt()\n"
        "loss = d.sum()\nloss.backward()\n"
    )
    r = gradcli("explain", "--run", "nan.py", "-q", "--html", "r.html", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    text = html.unescape((tmp_path / "r.html").read_text())
    assert '<span class="kind">non_finite</span>, line 3' in text
    assert 'class="node forward nonfinite cause-non_finite"' in text
