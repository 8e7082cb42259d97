"""Record what real TensorFlow returns for every gradient call of the thread scripts in
tests/data/tf_threads/ (without gradcli): tests/data/tf_threads/reference.json.

Each script runs unmodified, in its own subprocess (TF1 graph mode is process-wide), as
`python FILE` runs it, with TensorFlow's gradient entry points wrapped to look at their
results: tape.gradient / jacobian / batch_jacobian, tf.gradients (and the graph gradients a
TF1 optimizer takes), their values where TensorFlow computes them (eagerly, or when a
Session.run fetches them), None where it returns None, "symbolic" inside a traced step, and
for a call that raised, what it raised (`raised`, `message`, no `result`).

    /work/venv/bin/python tools/tf_threads_reference.py          # regenerate the JSON
    /work/venv/bin/python tools/tf_threads_reference.py --check  # exit 1 when out of date
    /work/venv/bin/python tools/tf_threads_reference.py --only A.py B.py  # re-record those
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "tf_threads"
OUT = DATA / "reference.json"


def _record_one(path: str) -> dict:
    """Run one script under the wrappers (in this process) and return its record."""
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.client.session import BaseSession
    from tensorflow.python.framework.func_graph import FuncGraph
    from tensorflow.python.ops import gradients as graph_gradients

    calls: list[dict] = []
    pending: list[tuple] = []  # (call record, index, symbolic tensor)
    depth = [0]

    def line_of() -> int | None:
        frame = sys._getframe(2)
        while frame is not None:
            if os.path.abspath(frame.f_code.co_filename) == path:
                return frame.f_lineno  # the innermost frame of the script
            frame = frame.f_back
        return None

    def entry(g):
        if g is None:
            return None
        if isinstance(g, tf.IndexedSlices):
            g = tf.convert_to_tensor(g)
        if not hasattr(g, "numpy") or not tf.executing_eagerly() or not hasattr(g, "_numpy"):
            return "symbolic"
        try:
            a = g.numpy()
        except Exception:
            return "symbolic"
        return value_of(a)

    def value_of(a):
        a = np.asarray(a)
        text = json.dumps(a.tolist()).replace("-Infinity", '"-inf"').replace("Infinity", '"inf"')
        listed = json.loads(text.replace("NaN", '"nan"'))
        return {"value": listed, "dtype": a.dtype.name, "shape": list(a.shape)}

    def wrap(method, original):
        def wrapper(*args, **kwargs):
            if depth[0]:
                return original(*args, **kwargs)
            line = line_of()
            depth[0] += 1
            try:
                result = original(*args, **kwargs)
            except Exception as exc:  # the call raised: no values, what it raised
                text = str(exc).splitlines()[0] if str(exc) else ""
                calls.append(
                    {
                        "kind": method,
                        "line": line,
                        "raised": type(exc).__name__,
                        "message": _stable(text),
                    }
                )
                raise
            finally:
                depth[0] -= 1
            flat = tf.nest.flatten(result) if result is not None else [None]
            record = {"kind": method, "line": line, "result": [entry(g) for g in flat]}
            for i, g in enumerate(flat):
                if record["result"][i] == "symbolic" and not isinstance(
                    getattr(g, "graph", None), FuncGraph
                ):
                    pending.append((record, i, g))
            calls.append(record)
            return result

        return wrapper

    tape = tf.GradientTape
    for method in ("gradient", "jacobian", "batch_jacobian"):
        setattr(tape, method, wrap(method, getattr(tape, method)))
    graph = wrap("tf.gradients", tf.gradients)
    tf.gradients = tf.compat.v1.gradients = graph
    graph_gradients.gradients = wrap("tf.gradients", graph_gradients.gradients)
    run = BaseSession.run

    def session_run(self, fetches, *args, **kwargs):
        out = run(self, fetches, *args, **kwargs)
        try:
            pairs = list(zip(tf.nest.flatten(fetches), tf.nest.flatten(out)))
        except (TypeError, ValueError):
            return out
        for record, i, g in pending:
            for fetched, value in pairs:
                if fetched is g and record["result"][i] == "symbolic":
                    record["result"][i] = value_of(value)
        return out

    BaseSession.run = session_run
    raised = None
    sys.argv = [path]
    namespace = {"__name__": "__main__", "__file__": path}
    os.chdir(os.path.dirname(path))
    try:
        exec(compile(Path(path).read_bytes(), path, "exec"), namespace)
    except Exception as exc:
        tb, line = exc.__traceback__, None
        while tb is not None:
            if os.path.abspath(tb.tb_frame.f_code.co_filename) == path:
                line = tb.tb_lineno
            tb = tb.tb_next
        message = _stable(str(exc).splitlines()[0])
        raised = {"type": type(exc).__name__, "message": message, "line": line}
    return {"calls": calls, "raises": raised}


def _stable(text: str) -> str:
    """A message without the memory addresses Python prints in reprs (<function f at 0x...>),
    so the record is the same on every run."""
    import re

    return re.sub(r" at 0x[0-9a-fA-F]+", " at 0x...", text)


def record_all(only: list[str] | None = None) -> dict:
    """Every script's record (or only the named ones', the others kept from the JSON), each
    made in a fresh subprocess."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TF_ENABLE_ONEDNN_OPTS": "0"}
    import tensorflow as tf

    cases = json.loads(OUT.read_text())["cases"] if only else {}
    paths = [DATA / name for name in only] if only else sorted(DATA.glob("*.py"))
    for path in paths:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(path)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        marker = out.stdout.rsplit("\x00", 1)
        if len(marker) != 2:
            raise SystemExit(f"{path.name}: no record\n{out.stderr[-3000:]}")
        cases[path.name] = json.loads(marker[1])
    return {
        "generator": "tools/tf_threads_reference.py",
        "tensorflow": tf.__version__,
        "cases": cases,
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["--one"]:
        record = _record_one(os.path.abspath(argv[1]))
        sys.stdout.write("\x00" + json.dumps(record))
        return 0
    doc = record_all(argv[1:] if argv[:1] == ["--only"] else None)
    doc["cases"] = dict(sorted(doc["cases"].items()))
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if argv[:1] == ["--check"]:
        return 0 if OUT.exists() and OUT.read_text() == text else 1
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
