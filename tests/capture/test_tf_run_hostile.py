"""`--run` on TensorFlow scripts that stress the capture, through the command line: the
script must behave exactly as under plain `python` (its output, its errors: each test runs
it both ways), and gradcli says what it could not read instead of changing the run. Grows
with every case found (XLA steps, check_numerics, two calls on one line, threads, steps run
eagerly, exits from inside a traced function). Needs TensorFlow."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("tensorflow", reason="the TensorFlow run mode needs TensorFlow")

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0"}


def _write(tmp_path, text: str):
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(text))
    return path


def plain(path) -> subprocess.CompletedProcess:
    """The script under plain python: the truth gradcli's run must keep."""
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=ENV, timeout=120
    )


def gradcli_run(path, *extra) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gradcli", "explain", "--run", str(path), *extra],
        capture_output=True, text=True, env=ENV, timeout=180,
    )  # fmt: skip


def _printed(stderr: str) -> list[str]:
    """The script's own printed lines (gradcli sends them to stderr), TensorFlow's logs out."""
    return [line for line in stderr.splitlines() if line.startswith(("tf.Tensor", "[", "done"))]


@pytest.mark.slow
def test_a_step_compiled_with_xla_runs_as_without_gradcli(tmp_path):
    # XLA compiles no Python op: gradcli adds none there, so the step runs and gradcli
    # says it read no values inside it (never "finite" for numbers it did not see)
    path = _write(tmp_path, """\
        import tensorflow as tf
        w = tf.Variable([0.5, -1.0])
        @tf.function(jit_compile=True)
        def f(x):
            with tf.GradientTape() as t:
                y = tf.reduce_sum(tf.math.abs(w) * x)
            return t.gradient(y, w)
        print(f(tf.constant([1.0, 2.0])))
        """)  # fmt: skip
    truth = plain(path)
    assert truth.returncode == 0 and "[ 1. -2.]" in truth.stdout
    res = gradcli_run(path)
    assert res.returncode == 0, res.stderr
    assert "[ 1. -2.]" in res.stderr and "Traceback" not in res.stderr
    assert "connected, values not read: w" in res.stdout
    assert "connected, finite" not in res.stdout
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    (call,) = doc["calls"]
    assert call["error"] is None and call["gradients"][0]["value"] is None
    assert any("jit_compile=True" in note for note in call["notes"])


@pytest.mark.slow
def test_keras_fit_compiled_with_xla_runs(tmp_path):
    path = _write(tmp_path, """\
        import numpy as np
        import keras
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
        model.compile(optimizer="sgd", loss="mse", jit_compile=True)
        model.fit(np.ones((8, 3), "float32"), np.ones((8, 1), "float32"), epochs=1, verbose=0)
        print("done")
        """)  # fmt: skip
    assert plain(path).returncode == 0
    res = gradcli_run(path)
    assert res.returncode == 0 and "done" in res.stderr and "Traceback" not in res.stderr
    assert "connected, values not read: model.trainable_variables[0]" in res.stdout


@pytest.mark.slow
def test_check_numerics_raises_tensorflows_own_error(tmp_path):
    # tf.debugging.enable_check_numerics stops the backward at sqrt's infinite gradient:
    # the call's error is the one TensorFlow raises, not one of the capture's retry
    path = _write(tmp_path, """\
        import tensorflow as tf
        tf.debugging.enable_check_numerics()
        x = tf.Variable([0.0, 1.0])
        with tf.GradientTape() as t:
            y = tf.reduce_sum(tf.sqrt(x))
        print(t.gradient(y, x))
        """)  # fmt: skip
    truth = plain(path)
    assert truth.returncode == 1
    assert "tensorflow.python.framework.errors_impl.InvalidArgumentError" in truth.stderr
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    error = doc["calls"][0]["error"]
    assert error["message"].startswith("InvalidArgumentError: ")
    assert "CheckNumericsV2" in error["message"] and "SqrtGrad" in error["message"]


@pytest.mark.slow
def test_two_gradient_calls_on_one_line_are_named_apart(tmp_path):
    # the second call of a non-persistent tape raises (as TensorFlow does); each call is
    # named by its own text, told apart by the instruction's columns
    path = _write(tmp_path, """\
        import tensorflow as tf
        x = tf.Variable(2.0)
        with tf.GradientTape() as t:
            y = x * x
            z = tf.cast(tf.round(y), tf.float32)
        print(t.gradient(y, x), t.gradient(z, x))
        """)  # fmt: skip
    truth = plain(path)
    assert "A non-persistent GradientTape can only be used" in truth.stderr
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    first, second = doc["calls"]
    assert (first["line"], first["target"]) == (6, "y")  # the table's "tape.gradient(y, ...)"
    assert (second["line"], second["target"]) == (6, "z")
    assert first["error"] is None and first["gradients"][0]["value"] == 4.0
    assert second["error"]["message"].startswith("RuntimeError: A non-persistent GradientTape")


@pytest.mark.slow
def test_a_gradient_taken_in_a_thread_and_functions_run_eagerly(tmp_path):
    path = _write(tmp_path, """\
        import threading
        import tensorflow as tf
        tf.config.run_functions_eagerly(True)
        w = tf.Variable([1.0, -2.0])
        out = []
        @tf.function
        def step(x):
            with tf.GradientTape() as t:
                y = tf.reduce_sum(tf.nn.relu(w * x))
            out.append(t.gradient(y, w))
        th = threading.Thread(target=step, args=(tf.constant([1.0, 1.0]),))
        th.start()
        th.join()
        print(out[0])
        """)  # fmt: skip
    truth = plain(path)
    assert "[1. 0.]" in truth.stdout
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    (call,) = doc["calls"]
    assert call["line"] == 10 and call["gradients"][0]["value"] == [1.0, 0.0]
    (pair,) = doc["pairs"]
    assert (pair["causes"][0]["kind"], pair["causes"][0]["line"]) == ("inactive", 9)


@pytest.mark.slow
def test_sys_exit_while_tracing_is_the_scripts_exit(tmp_path):
    path = _write(tmp_path, """\
        import sys
        import tensorflow as tf
        x = tf.Variable(1.0)
        with tf.GradientTape() as t:
            y = x * 2
        print(t.gradient(y, x))
        @tf.function
        def f():
            sys.exit(3)
        f()
        """)  # fmt: skip
    assert plain(path).returncode == 3
    res = gradcli_run(path)
    assert "Traceback" not in res.stderr and res.returncode == 0
    assert "note: the script exited with status 3" in res.stdout


@pytest.mark.slow
def test_mirrored_strategy_replica_threads_keep_your_lines(tmp_path):
    # MirroredStrategy runs the step in a replica thread that shares the starter's op
    # callbacks; AutoGraph's map back to your lines is the starter's too
    path = _write(tmp_path, """\
        import tensorflow as tf
        strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
        with strategy.scope():
            w = tf.Variable([1.0, -1.0])
            opt = tf.keras.optimizers.SGD(0.1)
        @tf.function
        def train(x):
            def step(x):
                with tf.GradientTape() as t:
                    loss = tf.reduce_sum(tf.nn.relu(w * x))
                g = t.gradient(loss, w)
                opt.apply_gradients([(g, w)])
                return loss
            return strategy.run(step, args=(x,))
        print(train(tf.constant([1.0, 1.0])))
        """)  # fmt: skip
    truth = plain(path)
    assert truth.returncode == 0 and "tf.Tensor(1.0" in truth.stdout
    res = gradcli_run(path, "--format", "json")
    assert "tf.Tensor(1.0" in res.stderr and "internal error" not in res.stderr
    doc = json.loads(res.stdout)
    (call,) = doc["calls"]
    assert call["line"] == 11 and call["gradients"][0]["value"] == [1.0, 0.0]
    (pair,) = doc["pairs"]
    assert (pair["causes"][0]["kind"], pair["causes"][0]["line"]) == ("inactive", 10)


@pytest.mark.slow
def test_tensorflows_own_tapes_are_not_your_gradient_calls(tmp_path):
    # ForwardAccumulator and recompute_grad use tapes inside TensorFlow: only the script's
    # own tape.gradient is a call, and the script is not stopped by --calls for theirs
    path = _write(tmp_path, """\
        import tensorflow as tf
        x = tf.Variable([1.0, 2.0])
        with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0, 0.0])) as acc:
            y = tf.reduce_sum(x ** 2)
        print(acc.jvp(y))
        f = tf.recompute_grad(lambda v: tf.sin(v) * 2.0)
        with tf.GradientTape() as t:
            z = tf.reduce_sum(f(x))
        print(t.gradient(z, x))
        """)  # fmt: skip
    truth = plain(path)
    assert truth.returncode == 0 and "tf.Tensor(2.0" in truth.stdout
    res = gradcli_run(path, "--format", "json", "--calls", "1")
    assert "tf.Tensor(2.0" in res.stderr, res.stderr
    doc = json.loads(res.stdout)
    (call,) = doc["calls"]
    assert call["line"] == 9 and call["kind"] == "gradient"
    expected = [2 * float(v) for v in (0.5403023, -0.41614684)]
    assert call["gradients"][0]["value"] == pytest.approx(expected, rel=1e-6)
    assert not any("stopped" in n for n in doc["notes"])


@pytest.mark.slow
@pytest.mark.parametrize("extra", [(), ("--timeout", "60")])
def test_a_script_without_gradient_calls_is_exit_2_with_its_reason(tmp_path, extra):
    path = _write(tmp_path, """\
        import tensorflow as tf
        print(tf.constant(1.0) * 2)
        """)  # fmt: skip
    res = gradcli_run(path, *extra)
    assert res.returncode == 2, res.stderr
    assert res.stderr.splitlines()[-1] == (
        f"gradcli: error: {path}: the script ran without any gradient call "
        "(tape.gradient, model.fit), so there is nothing to report"
    )


@pytest.mark.slow
def test_a_cause_in_an_imported_module_names_its_file(tmp_path):
    (tmp_path / "helpers.py").write_text(
        "import tensorflow as tf\n"
        "def loss_fn(w, x):\n"
        "    return tf.reduce_sum(tf.cast(tf.argmax(w * x), tf.float32))\n"
    )
    path = _write(tmp_path, """\
        import tensorflow as tf
        from helpers import loss_fn
        w = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as t:
            loss = loss_fn(w, tf.constant([1.0, 1.0]))
        print(t.gradient(loss, w))
        """)  # fmt: skip
    assert plain(path).stdout.strip() == "None"
    res = gradcli_run(path)
    assert res.returncode == 1
    assert "✗ non_differentiable at line 3 of helpers.py: tf.argmax" in res.stdout
    assert "line 3 of helpers.py: return tf.reduce_sum(" in res.stdout
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    cause = doc["pairs"][0]["causes"][0]
    assert cause["line"] == 3 and cause["file"] == f"{tmp_path / 'helpers.py'}:3"


@pytest.mark.slow
def test_a_traced_cond_names_the_untaken_branch_and_no_more(tmp_path):
    # inside tf.function, tf.cond is one If op and TensorFlow gives the untaken branch's
    # inputs zeros: u is untaken_branch; v's zero comes from a relu inside the branch that
    # ran, which gradcli does not read: unknown beyond the cond's line, never a guess
    path = _write(tmp_path, """\
        import tensorflow as tf
        v = tf.Variable(1.0)
        u = tf.Variable(2.0)
        @tf.function
        def f(a):
            with tf.GradientTape() as t:
                out = tf.cond(a, lambda: tf.nn.relu(v * -1.0), lambda: u * 3.0)
            return t.gradient(out, [v, u])
        print(f(tf.constant(True)))
        """)  # fmt: skip
    truth = plain(path)
    assert "numpy=-0.0>, <tf.Tensor: shape=(), dtype=float32, numpy=0.0>]" in truth.stdout
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    (call,) = doc["calls"]
    assert [g["value"] for g in call["gradients"]] == [-0.0, 0.0]
    causes = {p["input"]: [(c["kind"], c["line"]) for c in p["causes"]] for p in doc["pairs"]}
    assert causes == {"v": [("unknown", 7)], "u": [("untaken_branch", 7)]}
    v = next(p for p in doc["pairs"] if p["input"] == "v")
    assert "unknown beyond line 7" in v["causes"][0]["detail"]


@pytest.mark.slow
@pytest.mark.parametrize("mode, kind, line", [
    ("disable_v2_behavior", "untaken_branch", 6),  # TF1 control flow: Switch and Merge
    # cond_v2's If in a TF1 graph: the fed predicate's value is not read, so no guess
    ("disable_eager_execution", "unknown", 7),
])  # fmt: skip
def test_a_tf1_cond_names_the_untaken_branch(tmp_path, mode, kind, line):
    path = _write(tmp_path, f"""\
        import tensorflow as tf
        tf.compat.v1.{mode}()
        a = tf.compat.v1.placeholder(tf.bool, [])
        v = tf.Variable(1.0)
        u = tf.Variable(2.0)
        out = tf.cond(a, lambda: v * 2.0, lambda: u * 3.0)
        g = tf.gradients(out, [v, u])
        with tf.compat.v1.Session() as s:
            s.run(tf.compat.v1.global_variables_initializer())
            print(s.run(g, {{a: True}}))
        """)  # fmt: skip
    assert "[np.float32(2.0), np.float32(0.0)]" in plain(path).stdout
    doc = json.loads(gradcli_run(path, "--format", "json").stdout)
    (call,) = doc["calls"]
    assert [g["value"] for g in call["gradients"]] == [2.0, 0.0]
    u = next(p for p in doc["pairs"] if p["input"] == "u")
    assert u["status"] == "zero"
    assert (u["causes"][0]["kind"], u["causes"][0]["line"]) == (kind, line)
