"""Generate tests/data/tf_reference.json: gradcli's cases evaluated by TensorFlow in float64.

Run with a Python that has TensorFlow (never a dependency of gradcli or of its tests):

    /work/tfref/bin/python tools/tf_reference.py            # writes tests/data/tf_reference.json
    /work/tfref/bin/python tools/tf_reference.py --check    # exit 1 if the file is out of date
    /work/tfref/bin/python tools/tf_reference.py --keep     # evaluate only cases not stored yet

Every case in tools/tf_cases*.py pairs a gradcli expression (or a small spec) with the
equivalent TensorFlow computation written by hand. This script evaluates the TensorFlow
side with tf.GradientTape, once per unconnected mode ('none' and 'zero'), and stores the
outputs, the gradients (None kept as null), for second-order cases the Hessian
blocks and for higher-order ones the nested tapes' derivatives, together with each
case's gradcli text, so that tests/conformance/test_tf_reference.py can
check gradcli against TensorFlow without TensorFlow installed.

Numbers are stored exactly: a finite float as JSON's shortest round-trip decimal (so -0.0
stays -0.0), a non-finite one as the string "nan", "inf" or "-inf".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# oneDNN may reorder float arithmetic (its own log says so); plain Eigen kernels are the
# deterministic reference.
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_json import dump
from tf_cases import DERIVATIVES, Case, Derivative, Hessian, In, load

CASES, HESSIANS = load()
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "tf_reference.json"
MODES = {"none": tf.UnconnectedGradients.NONE, "zero": tf.UnconnectedGradients.ZERO}
DTYPES = {"float64": tf.float64, "float32": tf.float32, "int32": tf.int32, "int64": tf.int64}
DTYPES["bool"] = tf.bool


# --- encoding ------------------------------------------------------------------------------
def encode_number(v):
    """One array element as JSON: exact floats, non-finite floats as strings."""
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


def encode(value):
    """An array as {value, shape, dtype}; value is a number or a nested list."""
    arr = np.asarray(value)
    flat = [encode_number(v) for v in arr.reshape(-1).tolist()]
    nested = np.array(flat, dtype=object).reshape(arr.shape).tolist() if arr.shape else flat[0]
    return {"value": nested, "shape": list(arr.shape), "dtype": arr.dtype.name}


# --- spec text -------------------------------------------------------------------------------
def yaml_number(v) -> str:
    """A number as YAML 1.1 reads it back exactly (PyYAML needs a dot and a signed exponent)."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    f = float(v)
    if f != f:
        return ".nan"
    if f in (float("inf"), float("-inf")):
        return ".inf" if f > 0 else "-.inf"
    text = repr(f)
    if "e" in text and "." not in text.split("e")[0]:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}.0e{exponent}"
    return text


def yaml_value(value) -> str:
    arr = np.asarray(value)
    if arr.shape == ():
        return yaml_number(arr.item())
    return "[" + ", ".join(yaml_value(v) for v in arr) + "]"


def spec_text(case: Case) -> str:
    """The YAML spec of a spec-mode case."""
    lines = ["inputs:"]
    for name, inp in case.inputs.items():
        value = yaml_value(np.asarray(inp.value, dtype=inp.dtype))
        if inp.dtype == "float64" and inp.trainable:
            lines.append(f"  {name}: {value}")
            continue
        parts = [f"value: {value}"]
        if inp.dtype != "float64":
            parts.append(f"dtype: {inp.dtype}")
        if not inp.trainable and inp.dtype in ("float64", "float32"):
            parts.append("trainable: false")
        lines.append(f"  {name}: {{{', '.join(parts)}}}")
    if case.functions:
        lines.append("functions:")
        for fname, fn in case.functions.items():
            lines.append(f"  {fname}:")
            lines.append(f"    params: [{', '.join(fn['params'])}]")
            lines.append(f"    body: {json.dumps(fn['body'])}")
            if "grad" in fn:
                grad = fn["grad"]
                if isinstance(grad, list):
                    items = ", ".join("null" if g is None else json.dumps(g) for g in grad)
                    lines.append(f"    grad: [{items}]")
                else:
                    lines.append(f"    grad: {json.dumps(grad)}")
    lines.append("graph:")
    for name, text in case.graph.items():
        lines.append(f"  {name}: {json.dumps(text)}")
    if case.outputs:
        lines.append(f"outputs: [{', '.join(case.outputs)}]")
    if case.wrt:
        lines.append(f"wrt: [{', '.join(case.wrt)}]")
    if case.grad_ys:
        items = ", ".join(f"{k}: {yaml_value(v)}" for k, v in case.grad_ys.items())
        lines.append(f"grad_ys: {{{items}}}")
    return "\n".join(lines) + "\n"


# --- TensorFlow evaluation ---------------------------------------------------------------------
class Tensors:
    """The inputs as TensorFlow tensors, by attribute (v.x); watch() marks an intermediate."""

    def __init__(self, tensors: dict, tape):
        self._tensors = tensors
        self._tape = tape
        self.watched: dict = {}

    def __getattr__(self, name):
        try:
            return self._tensors[name]
        except KeyError:
            raise AttributeError(name) from None

    def watch(self, name: str, t):
        """Make intermediate t a gradient target named `name` (tape.watch on it)."""
        self._tape.watch(t)
        self.watched[name] = t
        return t


def make_tensors(inputs: dict[str, In]) -> dict:
    return {
        n: tf.constant(np.asarray(i.value, i.dtype), DTYPES[i.dtype]) for n, i in inputs.items()
    }


def dense(g):
    return tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g


def tf_first_order(case: Case) -> tuple[dict, dict]:
    """Outputs and, per mode, the gradients of a case, as TensorFlow computes them."""
    tensors = make_tensors(case.inputs)
    wrt = case.targets()
    with tf.GradientTape(persistent=True) as tape:
        for name in wrt:
            if name in tensors:
                tape.watch(tensors[name])
        v = Tensors(tensors, tape)
        result = case.tf(v)
    names = case.output_names()
    outs = result if isinstance(result, dict) else {names[0]: result}
    assert list(outs) == names, (case.id, list(outs), names)
    sources = [tensors[n] if n in tensors else v.watched[n] for n in wrt]
    seeds = []
    for name in names:
        out = outs[name]
        seed = case.grad_ys.get(name) if case.grad_ys else None
        if seed is None:
            seeds.append(tf.ones_like(out))  # what tape.gradient uses by default
        else:
            seeds.append(tf.broadcast_to(tf.constant(seed, out.dtype), out.shape))
    grads = {}
    for mode, flag in MODES.items():
        gs = tape.gradient(
            [outs[n] for n in names], sources, output_gradients=seeds, unconnected_gradients=flag
        )
        grads[mode] = {n: None if g is None else encode(dense(g).numpy()) for n, g in zip(wrt, gs)}
    return {n: encode(outs[n].numpy()) for n in names}, grads


def tf_hessian(case: Hessian) -> dict:
    """Per mode, the blocks d(dF/dx_i)/dx_j computed row by row with one-hot seeds."""
    tensors = make_tensors(case.inputs)
    wrt = list(case.inputs) if case.wrt is None else case.wrt
    xs = [tensors[n] for n in wrt]
    with tf.GradientTape(persistent=True) as outer:
        for x in xs:
            outer.watch(x)
        with tf.GradientTape() as inner:
            for x in xs:
                inner.watch(x)
            y = case.tf(Tensors(tensors, inner))
        first = inner.gradient(y, xs)
    out = {}
    for mode, flag in MODES.items():
        blocks = []
        for i, gi in enumerate(first):
            for j, xj in enumerate(xs):
                shape = tuple(xs[i].shape) + tuple(xj.shape)
                if gi is None:
                    value = None
                else:
                    rows = []
                    for k in range(int(np.prod(gi.shape, dtype=np.int64))):
                        onehot = np.zeros(int(np.prod(gi.shape, dtype=np.int64)))
                        onehot[k] = 1.0
                        seed = tf.constant(onehot.reshape(gi.shape), gi.dtype)
                        r = outer.gradient(
                            gi, xj, output_gradients=seed, unconnected_gradients=flag
                        )
                        rows.append(None if r is None else dense(r).numpy())
                    if all(r is None for r in rows):
                        value = None
                    else:
                        assert all(r is not None for r in rows), case.id
                        value = np.stack(rows).reshape(shape)
                if value is None and mode == "zero":
                    value = np.zeros(shape, xj.dtype.as_numpy_dtype)
                blocks.append(
                    {"of": wrt[i], "by": wrt[j], "value": None if value is None else encode(value)}
                )
        out[mode] = blocks
    return out


def tf_nested(case: Derivative, seq: list[str], flag) -> np.ndarray | None:
    """d/dw_N ... d/dw_1 F through N nested persistent tapes, w_1's tape innermost.

    Each order after the first is a jacobian of the order before, taken row by row with
    one-hot output_gradients while the outer tapes still record (so the next order can
    differentiate it); an order that is None stays None. Only the last order uses `flag`.
    """
    tensors = make_tensors(case.inputs)
    floats = [t for t in tensors.values() if t.dtype.is_floating]
    tapes = [tf.GradientTape(persistent=True) for _ in seq]
    for tape in reversed(tapes):  # the outermost first
        tape.__enter__()
        for t in floats:
            tape.watch(t)
    y = case.tf(Tensors(tensors, tapes[0]))
    none = tf.UnconnectedGradients.NONE
    g = None
    for k, name in enumerate(seq):
        tapes[k].__exit__(None, None, None)  # the innermost still recording
        x = tensors[name]
        last = flag if k == len(seq) - 1 else none
        if k == 0:
            g = tapes[0].gradient(y, x, unconnected_gradients=last)
            g = None if g is None else dense(g)
            continue
        if g is None:
            continue
        size = int(np.prod(g.shape, dtype=np.int64))
        rows = []
        for i in range(size):
            onehot = np.zeros(size)
            onehot[i] = 1.0
            seed = tf.constant(onehot.reshape(g.shape), g.dtype)
            r = tapes[k].gradient(g, x, output_gradients=seed, unconnected_gradients=last)
            rows.append(None if r is None else dense(r))
        if size and all(r is None for r in rows):
            g = None
        else:
            assert all(r is not None for r in rows), case.id
            shape = tuple(g.shape) + tuple(x.shape)
            g = tf.reshape(tf.stack(rows), shape) if rows else tf.zeros(shape, x.dtype)
    return None if g is None else g.numpy()


def tf_derivative(case: Derivative) -> dict:
    """Per mode, one block per sequence: {"wrt": [...], "value": encoded or None}."""
    out = {}
    for mode, flag in MODES.items():
        blocks = []
        for seq in case.sequences:
            value = tf_nested(case, seq, flag)
            if value is None and mode == "zero":
                shape = [d for n in seq for d in case_shape(case, n)]
                value = np.zeros(shape, case.inputs[seq[-1]].dtype)
            blocks.append({"wrt": seq, "value": None if value is None else encode(value)})
        out[mode] = blocks
    return out


def case_shape(case, name: str) -> list[int]:
    return list(np.shape(case.inputs[name].value))


def derivative_record(case: Derivative) -> dict:
    return {
        "id": case.id,
        "tolerance": case.tolerance,
        "expr": case.expr,
        "at": {n: encode(np.asarray(i.value, "float64"))["value"] for n, i in case.inputs.items()},
        **({"note": case.note} if case.note else {}),
        **({"ulps": case.ulps} if case.ulps is not None else {}),
        "derivatives": tf_derivative(case),
    }


# --- the document ------------------------------------------------------------------------------
def case_record(case: Case) -> dict:
    outputs, grads = tf_first_order(case)
    rec = {"id": case.id, "tolerance": case.tolerance}
    if case.ulps is not None:
        rec["ulps"] = case.ulps
    if case.differs:
        rec["differs"] = case.differs
    if case.expr is not None:
        rec["expr"] = case.expr
        rec["at"] = {
            n: encode(np.asarray(i.value, "float64"))["value"] for n, i in case.inputs.items()
        }
        if case.wrt:
            rec["wrt"] = case.wrt
    else:
        rec["spec"] = spec_text(case)
    if case.cli:
        rec["cli"] = True
    if case.note:
        rec["note"] = case.note
    rec["outputs"] = outputs
    rec["gradients"] = grads
    return rec


def hessian_record(case: Hessian) -> dict:
    return {
        "id": case.id,
        "tolerance": case.tolerance,
        "expr": case.expr,
        "at": {n: encode(np.asarray(i.value, "float64"))["value"] for n, i in case.inputs.items()},
        "wrt": list(case.inputs) if case.wrt is None else case.wrt,
        **({"note": case.note} if case.note else {}),
        **({"ulps": case.ulps} if case.ulps is not None else {}),
        "hessians": tf_hessian(case),
    }


def build() -> dict:
    ids = [c.id for c in CASES] + [h.id for h in HESSIANS] + [d.id for d in DERIVATIVES]
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes, f"duplicate case ids: {sorted(dupes)}"
    return {
        **build_header(),
        "cases": [case_record(c) for c in CASES],
        "hessians": [hessian_record(h) for h in HESSIANS],
        "derivatives": [derivative_record(d) for d in DERIVATIVES],
    }


RESULTS = ("outputs", "gradients", "hessians", "derivatives")


def build_keeping(path: Path, redo: set[str]) -> dict:
    """build(), but a case already stored in `path` (and not in `redo`) keeps its stored
    record, its note synced from the case: TensorFlow's multithreaded kernels (eigh, svd)
    are not bit-stable from run to run on a loaded machine, so a full run rewrites records
    nobody changed. New cases, and those named in redo, are evaluated."""
    old = json.loads(path.read_text())
    doc = build_header()
    for key, items, record in (
        ("cases", CASES, case_record),
        ("hessians", HESSIANS, hessian_record),
        ("derivatives", DERIVATIVES, derivative_record),
    ):
        stored = {r["id"]: r for r in old.get(key, [])}
        out = []
        for case in items:
            rec = stored.get(case.id)
            if rec is None or case.id in redo:
                out.append(record(case))
                continue
            if case.note and rec.get("note") != case.note:
                rec = dict(rec)
                if "note" in rec:  # in place
                    rec["note"] = case.note
                else:  # where the record functions put it: before ulps (orders 2 to 4)
                    before = "ulps" if key != "cases" and "ulps" in rec else None
                    items = list(rec.items())
                    at = next(i for i, (k, _) in enumerate(items) if k == before or k in RESULTS)
                    rec = dict([*items[:at], ("note", case.note), *items[at:]])
            out.append(rec)
        doc[key] = out
    return doc


def build_header() -> dict:
    return {
        "generator": "tools/tf_reference.py (cases in tools/tf_cases*.py)",
        "tensorflow": tf.__version__,
        "numpy": np.__version__,
        "onednn": os.environ["TF_ENABLE_ONEDNN_OPTS"] != "0",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the stored records of cases already in --out; evaluate new ones only",
    )
    parser.add_argument("--redo", action="append", default=[], help="with --keep: redo this id")
    args = parser.parse_args()
    keep = args.keep and args.out.exists()
    text = dump(build_keeping(args.out, set(args.redo)) if keep else build())
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("up to date" if same else f"{args.out} is out of date")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    doc = json.loads(text)
    print(
        f"wrote {args.out} ({len(text) // 1024} KB): {len(doc['cases'])} cases, "
        f"{len(doc['hessians'])} second-order cases, {len(doc['derivatives'])} higher-order "
        f"cases, TensorFlow {doc['tensorflow']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
