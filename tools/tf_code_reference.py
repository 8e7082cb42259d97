"""Generate tests/data/tf_code_reference.json: what real TensorFlow returns for the snippets
in tests/data/tf_code/*.py, the reference for gradcli's reader of TensorFlow code.

Run with a Python that has TensorFlow (never a dependency of gradcli or of its tests):

    /work/tfref/bin/python tools/tf_code_reference.py            # writes the JSON file
    /work/tfref/bin/python tools/tf_code_reference.py --check    # exit 1 if it is out of date
    /work/tfref/bin/python tools/tf_code_reference.py --only NAME --print   # one case, to stdout
    /work/tfref/bin/python tools/tf_code_reference.py --snippets tests/data/tf_never_wrong \
        --out tests/data/tf_never_wrong_reference.json     # another directory of snippets

Every snippet runs unmodified (its own file compiled under its real filename, so line numbers
are the file's), in a fresh subprocess (TF1 graph mode is process-global), with TensorFlow
instrumented: tf.GradientTape.gradient / .jacobian / .batch_jacobian record each call (inside
keras.Model.fit / train_on_batch, the first train step's tape.gradient is one "fit" call at
the fit line (for a model class with its own train_step, that step's own tape calls at their
lines), its values captured from the traced step by a tf.numpy_function, also for a
later fit that reuses the traced step without a tape.gradient call of its own; a TF1
optimizer's eager minimize / compute_gradients likewise, at their line), and
tf.gradients / tf.compat.v1.gradients plus tf.compat.v1.Session.run record each session run
that fetches gradient tensors (a graph-mode minimize / compute_gradients' too: the session
run fetching its gradients or minimize's train op). A call's record has the snippet line
that made it, its kind, and the result flattened in tf.nest.flatten order (a dict's keys
sorted; None kept as null).
An exception that escapes the snippet is recorded with its type, first message line and the
snippet line, after the calls made before it.

Each snippet also carries hand-written expectations for gradcli's diagnosis as whole-line
comments (``# values: exact``, ``# expect: call 0 source w: leaves_tape line 9``, ...); they
are copied into the JSON. tests/data/tf_code/README.md describes both formats.

Numbers are stored exactly, as tools/tf_reference.py does: a finite float as JSON's shortest
round-trip decimal of its value (a float32 element is written as the float64 of the same
value), a non-finite one as "nan", "inf" or "-inf". This module imports TensorFlow only in the
per-snippet subprocess.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_json import dump

ROOT = Path(__file__).resolve().parent.parent
SNIPPETS = ROOT / "tests" / "data" / "tf_code"
OUT = ROOT / "tests" / "data" / "tf_code_reference.json"
MARK = "@@tf_code_reference@@"
CAUSES = {
    "leaves_tape",
    "not_watched",
    "outside_tape",
    "non_differentiable",
    "integer",
    "untaken_branch",
    "stop_gradient",
    "no_path",
    "connected",
}
GRAPH_DEFAULT = "tf.compat.v1.trainable_variables()"  # a default var_list's labels (graph mode)
EAGER_DEFAULT = "tape.watched_variables()"  # (eager: the variables the loss function read)
TAPE_KINDS = {"gradient": "sources", "jacobian": "sources", "batch_jacobian": "source"}


# --- the child: one snippet under instrumented TensorFlow ----------------------------------------
def run_one(path: Path, values: str) -> dict:
    """Run one snippet with TensorFlow instrumented; its calls, error and warnings."""
    import io
    import logging
    import traceback
    import warnings

    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import numpy as np
    import tensorflow as tf
    from tensorflow.python.ops.unconnected_gradients import UnconnectedGradients

    snippet = str(path.resolve())
    exact = values == "exact"
    calls: list[dict] = []
    notes: list[dict] = []
    graph_grads: list[dict] = []
    depth = [0]  # >0 while inside a recorded call (jacobian calls gradient internally)

    def snippet_line(frame=None):
        f = frame or sys._getframe(1)
        while f is not None:
            if f.f_code.co_filename == snippet:
                return f.f_lineno
            f = f.f_back
        return None

    def number(v):
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, np.integer)):
            return int(v)
        f = float(v)
        if f != f:
            return "nan"
        if f in (float("inf"), float("-inf")):
            return "inf" if f > 0 else "-inf"
        return f

    def encode_array(arr: np.ndarray, dtype: str, **extra) -> dict:
        out = {}
        if exact:
            flat = [number(v) for v in arr.reshape(-1).tolist()]
            out["value"] = (
                np.array(flat, dtype=object).reshape(arr.shape).tolist() if arr.shape else flat[0]
            )
        out["shape"] = list(arr.shape)
        out["dtype"] = dtype
        out.update(extra)
        return out

    def encode(t):
        if t is None:
            return None
        extra = {}
        if isinstance(t, tf.IndexedSlices):
            extra["type"] = "IndexedSlices"
            t = tf.convert_to_tensor(t)
        if not hasattr(t, "numpy"):  # a symbolic tensor (tf.function tracing, graph mode)
            shape = None if t.shape.rank is None else [d for d in t.shape.as_list()]
            return {"shape": shape, "dtype": t.dtype.name, "symbolic": True, **extra}
        return encode_array(np.asarray(t.numpy()), t.dtype.name, **extra)

    def skeleton(s, counter):
        if isinstance(s, dict):
            return "{" + ", ".join(f"{k!r}: {skeleton(s[k], counter)}" for k in sorted(s)) + "}"
        if isinstance(s, (list, tuple)) and not hasattr(s, "_fields"):
            items = [skeleton(v, counter) for v in s]
            if isinstance(s, tuple):
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            return "[" + ", ".join(items) + "]"
        counter[0] += 1
        return str(counter[0] - 1)

    def first_line(e) -> str:
        """The message's first line; for tf.function's 'in user code:' report, its last."""
        lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
        if not lines:
            return ""
        text = lines[-1] if lines[0] == "in user code:" else lines[0]
        if isinstance(e, BaseException) and text.startswith(type(e).__name__ + ": "):
            text = text[len(type(e).__name__) + 2 :]
        text = re.sub(r" at 0x[0-9a-fA-F]+", "", text)  # object addresses differ per run
        return text.replace(str(ROOT) + os.sep, "")

    def mode_of(value):
        try:
            return UnconnectedGradients(value).value
        except ValueError:
            return str(value)

    def record_fit(fit, orig, self, args, kwargs):
        """The first train step's tape.gradient inside model.fit/train_on_batch: one "fit"
        call at the fit line; under tf.function its gradients are symbolic, so their values
        are captured by a tf.numpy_function that runs with the traced step."""
        again = fit["done"]  # tf.function traces train_step again (Adam makes variables)
        fit["done"] = True
        rec = fit.setdefault(
            "rec", {"kind": fit["kind"], "line": fit["line"], "unconnected": "none"}
        )
        if not again:
            calls.append(rec)
        depth[0] += 1
        try:
            result = orig(self, *args, **kwargs)
        except Exception as e:
            rec.update(structure=None, result=None, raised=type(e).__name__)
            raise
        finally:
            depth[0] -= 1
        flat = tf.nest.flatten(result)
        if not again:
            rec["structure"] = skeleton(result, [0])
            rec["result"] = [None if t is None else encode(t) for t in flat]
        live = [k for k, t in enumerate(flat) if t is not None]
        if live and any(not hasattr(flat[k], "numpy") for k in live):
            model = fit["model"]
            traced[id(model)] = {"structure": rec["structure"], "result": list(rec["result"])}

            def capture(*values):
                current = running[0]  # the fit call running this traced step now
                if current is not None and not current["captured"]:  # its first step only
                    current["captured"] = True
                    target = current["rec"]["result"]
                    for k, v in zip(live, values):
                        target[k] = encode_array(np.asarray(v), flat[k].dtype.name)
                return np.int32(0)

            tf.numpy_function(capture, [flat[k] for k in live], tf.int32, stateful=True)
        return result

    def record_user(fit, name, orig, self, args, kwargs, pos_mode):
        """A tape call in the user's train_step inside fit: recorded at its own line, as any
        tape call, once per call site of the first step (a retrace reuses its record); under
        tf.function its values are captured by a tf.numpy_function run with the step."""
        seq = fit["seq"]
        fit["seq"] += 1
        again = seq < len(fit["records"])
        if again:
            rec, state = fit["records"][seq]
        else:
            mode = kwargs.get("unconnected_gradients")
            if mode is None and len(args) > pos_mode:
                mode = args[pos_mode]
            rec = {"kind": name, "line": snippet_line(sys._getframe(2)),
                   "unconnected": mode_of(mode or "none")}  # fmt: skip
            if name == "gradient":
                og = kwargs.get("output_gradients", args[2] if len(args) > 2 else None)
                rec["output_gradients"] = og is not None
            rec["persistent"] = bool(self._persistent)
            state = {"captured": False}
            fit["records"].append((rec, state))
        depth[0] += 1
        try:
            result = orig(self, *args, **kwargs)
        except Exception as e:
            if not again:
                rec.update(structure=None, result=None, raised=type(e).__name__)
                calls.append(rec)
            raise
        finally:
            depth[0] -= 1
        flat = tf.nest.flatten(result)
        if not again:
            rec["structure"] = skeleton(result, [0])
            rec["result"] = [None if t is None else encode(t) for t in flat]
            calls.append(rec)
        live = [k for k, t in enumerate(flat) if t is not None]
        if live and any(not hasattr(flat[k], "numpy") for k in live):

            def capture(*values):
                if not state["captured"]:  # the first executed step only
                    state["captured"] = True
                    for k, v in zip(live, values):
                        rec["result"][k] = encode_array(np.asarray(v), flat[k].dtype.name)
                return np.int32(0)

            tf.numpy_function(capture, [flat[k] for k in live], tf.int32, stateful=True)
        return result

    fits: list[dict] = []  # model.fit/train_on_batch calls under way
    # a model's traced train step (Keras reuses it in later fit/train_on_batch calls, which
    # then make no tape.gradient call): its structure, for the later calls' records
    traced: dict[int, dict] = {}
    running: list = [None]

    def user_step(model) -> bool:
        """Whether the model's class overrides Keras's train_step (a class of the snippet)."""
        for klass in type(model).__mro__:
            if "train_step" in vars(klass):
                return not klass.__module__.startswith(("keras", "tensorflow"))
        return False

    def step_wrapper(fit, step):
        """The user's train_step, counting its traces: each trace (tf.function retraces when
        Adam makes its variables) makes the same tape calls, recorded once (first trace)."""

        def train_step(data):
            fit["trace"] += 1
            fit["seq"] = 0
            out = step(data)
            if tf.executing_eagerly():  # run_eagerly=True: the first step's calls only
                fit["done"] = True
            return out

        return train_step

    def wrap_fit(orig, kind="fit"):
        def fit(self, *args, **kwargs):
            line = snippet_line(sys._getframe(1))
            if line is None or fits:
                return orig(self, *args, **kwargs)
            fits.append({"kind": kind, "line": line, "done": False, "captured": False,
                         "model": self})  # fmt: skip
            template = traced.get(id(self))
            if template is not None:  # the traced step may be reused: record it again
                fits[-1]["rec"] = {"kind": kind, "line": line, "unconnected": "none",
                                   "structure": template["structure"],
                                   "result": list(template["result"])}  # fmt: skip
            running[0] = fits[-1]
            user = kind in ("fit", "train_on_batch") and user_step(self)
            if user:  # the user's own tape calls are the record, at their lines
                fits[-1].update(user=True, trace=0, seq=0, records=[])
                self.__dict__["train_step"] = step_wrapper(fits[-1], self.train_step)
            try:
                out = orig(self, *args, **kwargs)
                if not fits[-1]["done"] and fits[-1]["captured"]:  # the reused traced step
                    calls.append(fits[-1]["rec"])
                return out
            except Exception as e:  # raised before the step's gradient (tracing the loss)
                if user:
                    raise
                if not fits[-1]["done"] and kind == "fit":
                    count = len(self.trainable_variables)
                    calls.append({"kind": kind, "line": line, "unconnected": "none",
                                  "structure": None, "result": None, "raised": type(e).__name__,
                                  "count": count})  # fmt: skip
                raise
            finally:
                if user:
                    del self.__dict__["train_step"]
                fits.pop()
                running[0] = None

        fit.__wrapped__ = orig
        return fit

    import keras

    keras.Model.fit = wrap_fit(keras.Model.fit)
    keras.Model.train_on_batch = wrap_fit(keras.Model.train_on_batch)
    v1_graph: list[dict] = []  # graph-mode minimize/compute_gradients under way

    def wrap_v1(orig, kind):
        """A TF1 optimizer's method: eager (or given a loss function), its tape.gradient as
        fit's; in graph mode with a loss tensor, the gradient tensors it makes, recorded as
        tf.gradients' are (at each Session.run fetching them or minimize's train op)."""
        eager = wrap_fit(orig, kind)

        def method(self, loss, *args, **kwargs):
            if tf.executing_eagerly() or callable(loss):
                return eager(self, loss, *args, **kwargs)
            if v1_graph:  # compute_gradients inside a recorded minimize
                result = orig(self, loss, *args, **kwargs)
                if kind == "compute_gradients" and v1_graph[-1]["grads"] is None:
                    v1_graph[-1]["grads"] = [g for g, _ in result]
                return result
            line = snippet_line(sys._getframe(1))
            if line is None:
                return orig(self, loss, *args, **kwargs)
            rec = {"grads": None}
            v1_graph.append(rec)
            try:
                result = orig(self, loss, *args, **kwargs)
            except Exception:
                if rec["grads"] is not None:  # minimize: every gradient None, then raised
                    calls.append({"kind": kind, "line": line, "run_line": None,
                                  "unconnected": "none", "structure": skeleton(rec["grads"], [0]),
                                  "result": [encode(g) for g in rec["grads"]]})  # fmt: skip
                raise
            finally:
                v1_graph.pop()
            if kind == "compute_gradients":
                rec["grads"] = [g for g, _ in result]
            graph_grads.append({"kind": kind, "line": line, "result": rec["grads"],
                                "unconnected": "none", "runs": 0,
                                "vars": [] if kind == "minimize" else [v for _, v in result],
                                "ops": [result] if kind == "minimize" else []})  # fmt: skip
            return result

        method.__wrapped__ = orig
        return method

    def wrap_apply(orig):
        """Graph mode: apply_gradients' train op also fetches the latest compute_gradients
        call over the same variables (its gradients are run first, as minimize's)."""

        def apply_gradients(self, grads_and_vars, *args, **kwargs):
            pairs = list(grads_and_vars)
            result = orig(self, pairs, *args, **kwargs)
            if not tf.executing_eagerly() and not v1_graph:
                ids = {id(v) for _, v in pairs}
                for g in reversed(graph_grads):
                    if g.get("kind") == "compute_gradients" and ids & {id(v) for v in g["vars"]}:
                        g["ops"].append(result)
                        break
            return result

        apply_gradients.__wrapped__ = orig
        return apply_gradients

    V1 = tf.compat.v1.train.Optimizer  # TF1 optimizers: minimize/compute_gradients
    V1.minimize = wrap_v1(V1.minimize, "minimize")
    V1.compute_gradients = wrap_v1(V1.compute_gradients, "compute_gradients")
    V1.apply_gradients = wrap_apply(V1.apply_gradients)

    def wrap_tape(name, orig, pos_mode):
        def wrapper(self, *args, **kwargs):
            if depth[0]:
                return orig(self, *args, **kwargs)
            if fits and fits[-1].get("user"):
                if fits[-1]["done"]:  # a later eager step
                    return orig(self, *args, **kwargs)
                return record_user(fits[-1], name, orig, self, args, kwargs, pos_mode)
            if fits and name == "gradient":
                if fits[-1]["captured"]:
                    return orig(self, *args, **kwargs)
                return record_fit(fits[-1], orig, self, args, kwargs)
            line = snippet_line(sys._getframe(1))
            mode = kwargs.get("unconnected_gradients")
            if mode is None and len(args) > pos_mode:
                mode = args[pos_mode]
            rec = {"kind": name, "line": line, "unconnected": mode_of(mode or "none")}
            if name == "gradient":
                og = kwargs.get("output_gradients", args[2] if len(args) > 2 else None)
                rec["output_gradients"] = og is not None
            rec["persistent"] = bool(self._persistent)
            depth[0] += 1
            try:
                result = orig(self, *args, **kwargs)
            except Exception as e:
                rec.update(structure=None, result=None, raised=type(e).__name__)
                calls.append(rec)
                raise
            finally:
                depth[0] -= 1
            rec["structure"] = skeleton(result, [0])
            rec["result"] = [encode(t) for t in tf.nest.flatten(result)]
            calls.append(rec)
            return result

        wrapper.__wrapped__ = orig
        return wrapper

    GT = tf.GradientTape
    GT.gradient = wrap_tape("gradient", GT.gradient, 3)
    GT.jacobian = wrap_tape("jacobian", GT.jacobian, 2)
    GT.batch_jacobian = wrap_tape("batch_jacobian", GT.batch_jacobian, 2)

    def wrap_gradients(orig):
        def gradients(*args, **kwargs):
            line = snippet_line(sys._getframe(1))
            mode = kwargs.get("unconnected_gradients", "none")
            try:
                result = orig(*args, **kwargs)
            except Exception as e:
                if line is not None:
                    calls.append(
                        {
                            "kind": "tf.gradients",
                            "line": line,
                            "run_line": None,
                            "unconnected": mode_of(mode),
                            "structure": None,
                            "result": None,
                            "raised": type(e).__name__,
                        }
                    )
                raise
            if line is not None and isinstance(result, list):
                graph_grads.append(
                    {"line": line, "result": result, "unconnected": mode_of(mode), "runs": 0}
                )
            return result

        gradients.__wrapped__ = orig
        return gradients

    tf.gradients = wrap_gradients(tf.gradients)
    tf.compat.v1.gradients = wrap_gradients(tf.compat.v1.gradients)

    def dense_value(v):
        if hasattr(v, "indices") and hasattr(v, "dense_shape"):  # IndexedSlicesValue
            out = np.zeros(v.dense_shape, v.values.dtype)
            np.add.at(out, v.indices, v.values)
            return out, {"type": "IndexedSlices"}
        return np.asarray(v), {}

    Session = tf.compat.v1.Session
    orig_run = Session.run

    def run(self, fetches, *args, **kwargs):
        line = snippet_line(sys._getframe(1))
        if line is not None and graph_grads:
            try:
                flat = tf.nest.flatten(fetches)
            except Exception:
                flat = [fetches]
            ids = {id(t) for t in flat if t is not None}
            for g in graph_grads:
                present = [t for t in g["result"] if t is not None]
                if (
                    fetches is not g["result"]
                    and not any(id(t) in ids for t in present)
                    and not any(id(op) in ids for op in g.get("ops", ()))
                ):
                    continue
                try:
                    got = iter(orig_run(self, present, *args, **kwargs))
                except Exception:
                    continue
                result = []
                for t in g["result"]:
                    if t is None:
                        result.append(None)
                        continue
                    arr, extra = dense_value(next(got))
                    result.append(encode_array(arr, t.dtype.name, **extra))
                g["runs"] += 1
                calls.append(
                    {
                        "kind": g.get("kind", "tf.gradients"),
                        "line": g["line"],
                        "run_line": line,
                        "unconnected": g["unconnected"],
                        "structure": skeleton(g["result"], [0]),
                        "result": result,
                    }
                )
        return orig_run(self, fetches, *args, **kwargs)

    Session.run = run

    class Capture(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                notes.append(
                    {
                        "source": "tensorflow",
                        "message": first_line(record.getMessage()),
                        "line": snippet_line(),
                    }
                )

    tf.get_logger().addHandler(Capture())
    tf.get_logger().propagate = False

    def showwarning(message, category, filename, lineno, file=None, line=None):
        notes.append(
            {
                "source": category.__name__,
                "message": first_line(message),
                "line": snippet_line(),
            }
        )

    warnings.showwarning = showwarning
    tf.random.set_seed(0)
    np.random.seed(0)

    source = path.read_text()
    code = compile(source, snippet, "exec")
    out = {}
    stdout = sys.stdout
    sys.stdout = io.StringIO()
    try:
        exec(code, {"__name__": "__main__", "__file__": snippet})
    except BaseException as e:  # the snippet's own error is part of the record
        tb = traceback.extract_tb(e.__traceback__)
        lines = [f.lineno for f in tb if f.filename == snippet]
        # a tf.function's error names the traced line in its message ("in user code:")
        lines += [int(n) for n in re.findall(rf'File "{re.escape(snippet)}", line (\d+)', str(e))]
        out["error"] = {
            "type": type(e).__name__,
            "message": first_line(e),
            "line": lines[-1] if lines else None,
        }
    finally:
        sys.stdout = stdout
    for g in graph_grads:  # tf.gradients whose tensors no session ever ran
        if not g["runs"]:
            calls.append(
                {
                    "kind": g.get("kind", "tf.gradients"),
                    "line": g["line"],
                    "run_line": None,
                    "unconnected": g["unconnected"],
                    "structure": skeleton(g["result"], [0]),
                    "result": [
                        None if t is None else {"shape": None, "dtype": t.dtype.name}
                        for t in g["result"]
                    ],
                }
            )
    out["calls"] = calls
    if notes:
        out["warnings"] = notes
    return out


# --- the parent: headers, source labels, the document ---------------------------------------
HEADER = re.compile(r"^#\s*(values|expect|standalone|note):\s*(.*?)\s*$")
EXPECT = re.compile(r"^call\s+(\d+)\s+source\s+(.+?):\s*(\w+)(?:\s+line\s+(\d+))?$")


def read_header(path: Path) -> dict:
    """The whole-line `# key: value` comments of a snippet (anywhere in the file)."""
    head: dict = {"values": None, "standalone": True, "notes": [], "expect": []}
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        m = HEADER.match(raw)
        if not m:
            continue
        key, text = m.groups()
        if key == "values":
            if text not in ("exact", "structure"):
                raise SystemExit(f"{path.name}:{n}: values must be exact or structure")
            head["values"] = text
        elif key == "standalone":
            head["standalone"] = text.split()[0].lower() not in ("false", "no")
            if " " in text:
                head["notes"].append(text.split(None, 1)[1].lstrip("-— "))
        elif key == "note":
            head["notes"].append(text)
        else:
            e = EXPECT.match(text)
            if not e:
                raise SystemExit(f"{path.name}:{n}: bad expectation {text!r}")
            call, source, cause, line = e.groups()
            if cause not in CAUSES:
                raise SystemExit(f"{path.name}:{n}: unknown cause {cause!r}")
            item = {"call": int(call), "source": source, "cause": cause}
            if line:
                item["line"] = int(line)
            head["expect"].append((n, item))
    if head["values"] is None:
        raise SystemExit(f"{path.name}: no '# values: exact|structure' line")
    return head


def call_node(tree: ast.AST, kind: str, line: int):
    """The innermost gradient call of this kind spanning the line."""
    names = {"tf.gradients": ("gradients",)}.get(kind, (kind,))
    best = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in names or not (node.lineno <= line <= node.end_lineno):
            continue
        if best is None or (node.end_lineno - node.lineno) < (best.end_lineno - best.lineno):
            best = node
    return best


def literal_labels(node) -> list:
    """Labels of a sources expression flattened as tf.nest would, read from the code alone."""
    if isinstance(node, (ast.List, ast.Tuple)) and not any(
        isinstance(e, ast.Starred) for e in node.elts
    ):
        return [label for e in node.elts for label in literal_labels(e)]
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
        pairs = sorted(zip([k.value for k in node.keys], node.values), key=lambda kv: kv[0])
        return [label for _, v in pairs for label in literal_labels(v)]
    return [ast.unparse(node)]


def source_labels(tree: ast.AST, call: dict) -> list | None:
    """The source expression of each flattened result element, as the snippet writes it."""
    if call["kind"] in ("minimize", "compute_gradients"):  # TF1 optimizers: var_list
        node = call_node(tree, call["kind"], call["line"])
        if node is None:
            return None
        arg = next((k.value for k in node.keywords if k.arg == "var_list"), None)
        position = 2 if call["kind"] == "minimize" else 1
        if arg is None and len(node.args) > position:
            arg = node.args[position]
        if arg is None:  # the default var_list: graph mode's collection, eager's tape's
            count = len(call["result"] or [])
            default = GRAPH_DEFAULT if "run_line" in call else EAGER_DEFAULT
            return [f"{default}[{k}]" for k in range(count)]
        labels = literal_labels(arg)
        if len(labels) == 1 and call["result"] is not None and len(call["result"]) > 1:
            labels = [f"{labels[0]}[{k}]" for k in range(len(call["result"]))]
        return labels
    if call["kind"] == "fit":  # the model's trainable_variables, in Keras's order
        node = call_node(tree, "fit", call["line"]) or call_node(
            tree, "train_on_batch", call["line"]
        )
        if node is None:
            return None
        model = ast.unparse(node.func.value)
        count = call.pop("count") if call["result"] is None else len(call["result"])
        return [f"{model}.trainable_variables[{k}]" for k in range(count)]
    node = call_node(tree, call["kind"], call["line"]) if call["line"] else None
    if node is None:
        return None
    keyword = "xs" if call["kind"] == "tf.gradients" else TAPE_KINDS[call["kind"]]
    arg = next((k.value for k in node.keywords if k.arg == keyword), None)
    if (
        arg is None
        and len(node.args) > 1
        and not any(isinstance(a, ast.Starred) for a in node.args[:2])
    ):
        arg = node.args[1]
    if arg is None:
        return None
    if call["structure"] is None:  # the call raised: label the sources as written
        return literal_labels(arg)
    structure = ast.literal_eval(call["structure"])
    single = call["kind"] == "tf.gradients" and structure == [0]
    if single and not isinstance(arg, (ast.List, ast.Tuple)):
        return [ast.unparse(arg)]  # tf.gradients wraps a single xs in a list
    out: dict[int, str] = {}

    def walk(n, s, text):
        if isinstance(s, int):
            out[s] = text
        elif isinstance(s, dict):
            given = {}
            if isinstance(n, ast.Dict) and all(isinstance(k, ast.Constant) for k in n.keys):
                given = {k.value: v for k, v in zip(n.keys, n.values)}
            for k in sorted(s):
                v = given.get(k)
                walk(v, s[k], ast.unparse(v) if v is not None else f"{text}[{k!r}]")
        else:
            elts = None
            if (
                isinstance(n, (ast.List, ast.Tuple))
                and len(n.elts) == len(s)
                and not any(isinstance(e, ast.Starred) for e in n.elts)
            ):
                elts = n.elts
            for i, v in enumerate(s):
                e = elts[i] if elts else None
                walk(e, v, ast.unparse(e) if e is not None else f"{text}[{i}]")

    walk(arg, structure, ast.unparse(arg))
    return [out.get(i) for i in range(len(call["result"]))]


def case_record(path: Path) -> dict:
    head = read_header(path)
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--run-one", str(path), head["values"]],
        capture_output=True,
        text=True,
        env={**os.environ, "TF_ENABLE_ONEDNN_OPTS": "0", "TF_CPP_MIN_LOG_LEVEL": "3"},
        cwd=str(path.parent),
        timeout=600,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode or not lines:
        raise SystemExit(f"{path.name}: the runner failed\n{proc.stderr[-4000:]}")
    ran = json.loads(lines[-1][len(MARK) :])
    tree = ast.parse(path.read_text(), str(path))
    for call in ran["calls"]:
        call["sources"] = source_labels(tree, call)
    expect = []
    for n, item in head["expect"]:
        calls = ran["calls"]
        if item["call"] >= len(calls):
            raise SystemExit(f"{path.name}:{n}: no call {item['call']} ({len(calls)} recorded)")
        labels = calls[item["call"]]["sources"] or []
        src = item["source"]
        if src.startswith("#"):
            index = int(src[1:])
            if index >= len(calls[item["call"]]["result"] or labels):
                raise SystemExit(f"{path.name}:{n}: no source {src}")
            item["source"] = labels[index] if index < len(labels) else None
        else:
            # compare as ast.unparse writes it: params["w"] is params['w']
            with contextlib.suppress(SyntaxError):
                src = item["source"] = ast.unparse(ast.parse(src, mode="eval").body)
            if labels.count(src) != 1:
                raise SystemExit(f"{path.name}:{n}: source {src!r} not one of {labels}")
            index = labels.index(src)
        expect.append(
            {"call": item["call"], "index": index, **{k: v for k, v in item.items() if k != "call"}}
        )
    rec = {
        "id": path.stem,
        "file": path.relative_to(ROOT).as_posix(),
        "values": head["values"],
        "standalone": head["standalone"],
    }
    if head["notes"]:
        rec["note"] = " ".join(head["notes"])
    rec["expect"] = expect
    rec["calls"] = []
    for call in ran["calls"]:
        order = ["kind", "line", "run_line", "unconnected", "output_gradients", "persistent"]
        order += ["structure", "sources", "result", "raised"]
        rec["calls"].append({k: call[k] for k in order if k in call})
    if "error" in ran:
        rec["error"] = ran["error"]
    if "warnings" in ran:
        rec["warnings"] = ran["warnings"]
    return rec


def versions() -> dict:
    code = (
        "import os; os.environ['TF_CPP_MIN_LOG_LEVEL']='3'; import json, numpy, tensorflow, keras;"
        "print(json.dumps([tensorflow.__version__, keras.__version__, numpy.__version__]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    tfv, kv, npv = json.loads(out.stdout.strip().splitlines()[-1])
    return {"tensorflow": tfv, "keras": kv, "numpy": npv}


def build(paths: list[Path], jobs: int, snippets: Path = SNIPPETS) -> dict:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        cases = list(pool.map(case_record, paths))
    where = snippets.resolve().relative_to(ROOT).as_posix()
    return {
        "generator": f"tools/tf_code_reference.py (snippets in {where}/)",
        **versions(),
        "onednn": False,
        "cases": cases,
    }


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--run-one":
        result = run_one(Path(sys.argv[2]), sys.argv[3])
        sys.stdout.write("\n" + MARK + json.dumps(result, allow_nan=False) + "\n")
        sys.stdout.flush()
        os._exit(0)  # skip TensorFlow's slow and sometimes noisy interpreter teardown
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--snippets", type=Path, default=SNIPPETS, help="the snippets' directory")
    parser.add_argument("--only", action="append", help="run only these snippets (by name)")
    parser.add_argument("--print", action="store_true", help="print the JSON, write nothing")
    parser.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    args = parser.parse_args()
    paths = sorted(args.snippets.resolve().glob("*.py"))
    if args.only:
        paths = [p for p in paths if p.stem in args.only or p.name in args.only]
    text = dump(build(paths, args.jobs, args.snippets))
    if args.print or args.only:
        sys.stdout.write(text)
        return 0
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("up to date" if same else f"{args.out} is out of date")
        return 0 if same else 1
    args.out.write_text(text)
    doc = json.loads(text)
    errors = sum(1 for c in doc["cases"] if "error" in c)
    print(
        f"wrote {args.out} ({len(text) // 1024} KB): {len(doc['cases'])} snippets "
        f"({errors} raise), TensorFlow {doc['tensorflow']}, Keras {doc['keras']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
