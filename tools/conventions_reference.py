"""Generate tests/data/conventions_reference.json: gradients at kinks and ties, by TensorFlow
and by PyTorch, for tests/core/test_conventions.py.

Each case is a gradcli expression at a point where an op's gradient is a convention (relu at
0, maximum at a tie), with the same computation written by hand for TensorFlow and, where
PyTorch has the op, for PyTorch. Run with a Python that has tensorflow 2.21 and torch 2.13:

    python tools/conventions_reference.py            # writes the file
    python tools/conventions_reference.py --check    # exit 1 if it is out of date

The gradient is that of sum(output) w.r.t. every input (None kept as null); numbers are
stored as tools/tf_reference.py stores them (non-finite ones as strings).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf
import torch

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "conventions_reference.json"
F = torch.nn.functional

# (id, the op whose convention is at the point, gradcli expression, inputs, TensorFlow, PyTorch)
CASES = [
    ("relu_0", "relu", "relu(x)", {"x": [-1.0, 0.0, 2.0]}, lambda v: tf.nn.relu(v["x"]),
     lambda v: torch.relu(v["x"])),
    ("abs_0", "abs", "abs(x)", {"x": [0.0, 1.5]}, lambda v: tf.abs(v["x"]),
     lambda v: torch.abs(v["x"])),
    ("sign_0", "sign", "sign(x) * x", {"x": [0.0, 2.0]}, lambda v: tf.sign(v["x"]) * v["x"],
     lambda v: torch.sign(v["x"]) * v["x"]),
    ("floor_integer", "floor", "floor(x)", {"x": [1.0, 1.5]}, lambda v: tf.floor(v["x"]),
     lambda v: torch.floor(v["x"])),
    ("ceil_integer", "ceil", "ceil(x)", {"x": [2.0, 1.5]}, lambda v: tf.math.ceil(v["x"]),
     lambda v: torch.ceil(v["x"])),
    ("round_half", "round", "round(x)", {"x": [0.5, 2.5, 1.2]}, lambda v: tf.round(v["x"]),
     lambda v: torch.round(v["x"])),
    ("floordiv_whole", "floordiv", "floordiv(x, y)", {"x": [4.0, 3.0], "y": [2.0, 2.0]},
     lambda v: tf.math.floordiv(v["x"], v["y"]), None),
    ("floormod_whole", "floormod", "floormod(x, y)", {"x": [4.0, 3.0], "y": [2.0, 2.0]},
     lambda v: tf.math.floormod(v["x"], v["y"]), lambda v: torch.remainder(v["x"], v["y"])),
    ("sqrt_0", "sqrt", "sqrt(x)", {"x": [0.0, 4.0]}, lambda v: tf.sqrt(v["x"]),
     lambda v: torch.sqrt(v["x"])),
    ("pow_base_0", "pow", "x ** y", {"x": [0.0, 0.0], "y": [0.5, 2.5]},
     lambda v: tf.pow(v["x"], v["y"]), lambda v: torch.pow(v["x"], v["y"])),
    ("pow_0_0", "pow", "x ** y", {"x": [0.0], "y": [0.0]},
     lambda v: tf.pow(v["x"], v["y"]), lambda v: torch.pow(v["x"], v["y"])),
    ("pow_negative_base", "pow", "x ** y", {"x": [-2.0], "y": [2.0]},
     lambda v: tf.pow(v["x"], v["y"]), lambda v: torch.pow(v["x"], v["y"])),
    ("maximum_tie", "maximum", "maximum(x, y)", {"x": [1.0, 2.0], "y": [1.0, 0.0]},
     lambda v: tf.maximum(v["x"], v["y"]), lambda v: torch.maximum(v["x"], v["y"])),
    ("minimum_tie", "minimum", "minimum(x, y)", {"x": [1.0, 2.0], "y": [1.0, 0.0]},
     lambda v: tf.minimum(v["x"], v["y"]), lambda v: torch.minimum(v["x"], v["y"])),
    ("clip_bounds", "clip", "clip(x, lo, hi)",
     {"x": [-1.0, 1.0, 0.5], "lo": [-1.0, -1.0, -1.0], "hi": [1.0, 1.0, 1.0]},
     lambda v: tf.clip_by_value(v["x"], v["lo"], v["hi"]),
     lambda v: torch.clamp(v["x"], v["lo"], v["hi"])),
    ("max_tie", "max", "max(x)", {"x": [1.0, 3.0, 3.0]}, lambda v: tf.reduce_max(v["x"]),
     lambda v: torch.max(v["x"])),
    ("min_tie", "min", "min(x)", {"x": [1.0, 1.0, 3.0]}, lambda v: tf.reduce_min(v["x"]),
     lambda v: torch.min(v["x"])),
    ("norm_0", "norm", "norm(x)", {"x": [0.0, 0.0]}, lambda v: tf.norm(v["x"]),
     lambda v: torch.linalg.vector_norm(v["x"])),
    ("norm_1_0", "norm", "norm(x, ord=1)", {"x": [0.0, 2.0]}, lambda v: tf.norm(v["x"], ord=1),
     lambda v: torch.linalg.vector_norm(v["x"], ord=1)),
    ("norm_3_0", "norm", "norm(x, ord=3)", {"x": [0.0, 0.0]}, lambda v: tf.norm(v["x"], ord=3),
     lambda v: torch.linalg.vector_norm(v["x"], ord=3)),
    ("norm_inf_tie", "norm", "norm(x, ord=inf)", {"x": [-2.0, 2.0, 1.0]},
     lambda v: tf.norm(v["x"], ord=np.inf),
     lambda v: torch.linalg.vector_norm(v["x"], ord=float("inf"))),
    ("cumprod_0", "cumprod", "cumprod(x)", {"x": [2.0, 0.0, 3.0]},
     lambda v: tf.math.cumprod(v["x"]), lambda v: torch.cumprod(v["x"], 0)),
    ("cummax_tie", "cummax", "cummax(x) * [1, 2, 3]", {"x": [1.0, 1.0, 0.5]},
     lambda v: tf.scan(tf.maximum, v["x"]) * [1.0, 2.0, 3.0],
     lambda v: torch.cummax(v["x"], 0).values
     * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)),
    ("cummin_tie", "cummin", "cummin(x) * [1, 2, 3]", {"x": [1.0, 1.0, 2.0]},
     lambda v: tf.scan(tf.minimum, v["x"]) * [1.0, 2.0, 3.0],
     lambda v: torch.cummin(v["x"], 0).values
     * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)),
    ("sort_tie", "sort", "sort(x) * [1, 2, 3]", {"x": [1.0, 1.0, 0.0]},
     lambda v: tf.sort(v["x"]) * [1.0, 2.0, 3.0],
     lambda v: torch.sort(v["x"], stable=True).values
     * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)),
    ("top_k_tie", "top_k", "top_k(x, k=2) * [1, 2]", {"x": [1.0, 1.0, 1.0]},
     lambda v: tf.math.top_k(v["x"], k=2).values * [1.0, 2.0],
     lambda v: torch.topk(v["x"], 2).values * torch.tensor([1.0, 2.0], dtype=torch.float64)),
    ("max_pool1d_tie", "max_pool1d",
     "max_pool1d(reshape(x, shape=[1, 4, 1]), 2, 2, padding='VALID')",
     {"x": [1.0, 1.0, 2.0, 3.0]},
     lambda v: tf.nn.max_pool1d(tf.reshape(v["x"], [1, 4, 1]), 2, 2, "VALID"),
     lambda v: F.max_pool1d(v["x"].view(1, 1, 4), 2, 2)),
    ("max_pool2d_tie", "max_pool2d",
     "max_pool2d(reshape(x, shape=[1, 2, 2, 1]), 2, 2, padding='VALID')",
     {"x": [1.0, 1.0, 0.0, 1.0]},
     lambda v: tf.nn.max_pool2d(tf.reshape(v["x"], [1, 2, 2, 1]), 2, 2, "VALID"),
     lambda v: F.max_pool2d(v["x"].view(1, 1, 2, 2), 2, 2)),
    ("segment_max_tie", "segment_max", "segment_max(x, [0, 0, 1])", {"x": [2.0, 2.0, 1.0]},
     lambda v: tf.math.segment_max(v["x"], [0, 0, 1]),
     lambda v: torch.zeros(2, dtype=torch.float64).scatter_reduce(
         0, torch.tensor([0, 0, 1]), v["x"], "amax", include_self=False)),
    ("tensor_scatter_update_duplicates", "tensor_scatter_update",
     "tensor_scatter_update(t, [[1], [1]], u) * [1, 5, 1]",
     {"t": [0.0, 0.0, 0.0], "u": [1.0, 2.0]},
     lambda v: tf.tensor_scatter_nd_update(v["t"], [[1], [1]], v["u"]) * [1.0, 5.0, 1.0],
     lambda v: v["t"].index_put((torch.tensor([1, 1]),), v["u"])
     * torch.tensor([1.0, 5.0, 1.0], dtype=torch.float64)),
    ("relu6_bounds", "relu6", "relu6(x)", {"x": [0.0, 6.0, 3.0]}, lambda v: tf.nn.relu6(v["x"]),
     lambda v: F.relu6(v["x"])),
    ("hard_sigmoid_bounds", "hard_sigmoid", "hard_sigmoid(x)", {"x": [-3.0, 3.0, 0.0]},
     lambda v: tf.nn.relu6(v["x"] + 3.0) / 6.0, lambda v: F.hardsigmoid(v["x"])),
    ("leaky_relu_0", "leaky_relu", "leaky_relu(x)", {"x": [0.0, 1.0]},
     lambda v: tf.nn.leaky_relu(v["x"]), lambda v: F.leaky_relu(v["x"], 0.2)),
    ("selu_0", "selu", "selu(x)", {"x": [0.0]}, lambda v: tf.nn.selu(v["x"]),
     lambda v: F.selu(v["x"])),
    ("mean_absolute_error_0", "abs", "mean_absolute_error(x, y)",
     {"x": [1.0, 2.0], "y": [1.0, 3.0]},
     lambda v: tf.reduce_mean(tf.abs(v["y"] - v["x"])),
     lambda v: F.l1_loss(v["y"], v["x"])),
]  # fmt: skip


def encode_number(v):
    f = float(v)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    return f


def encode(arr):
    return None if arr is None else [encode_number(v) for v in np.asarray(arr).reshape(-1)]


def tf_gradients(inputs: dict, fn) -> dict:
    xs = {n: tf.constant(np.asarray(v, np.float64)) for n, v in inputs.items()}
    with tf.GradientTape(persistent=True) as tape:
        for x in xs.values():
            tape.watch(x)
        y = tf.reduce_sum(fn(xs))
    return {n: encode(None if (g := tape.gradient(y, x)) is None else g.numpy())
            for n, x in xs.items()}  # fmt: skip


def torch_gradients(inputs: dict, fn) -> dict | None:
    if fn is None:
        return None
    xs = {n: torch.tensor(v, dtype=torch.float64, requires_grad=True) for n, v in inputs.items()}
    fn(xs).sum().backward()
    return {n: encode(None if x.grad is None else x.grad.numpy()) for n, x in xs.items()}


def build() -> dict:
    cases = []
    for cid, op, text, inputs, tf_fn, torch_fn in CASES:
        cases.append(
            {
                "id": cid,
                "op": op,
                "expr": text,
                "at": inputs,
                "tensorflow": tf_gradients(inputs, tf_fn),
                "pytorch": torch_gradients(inputs, torch_fn),
            }
        )
    return {
        "generator": "tools/conventions_reference.py",
        "tensorflow": tf.__version__,
        "torch": torch.__version__,
        "cases": cases,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is out of date")
    args = parser.parse_args()
    text = json.dumps(build(), indent=1) + "\n"
    if args.check:
        return 0 if OUT.exists() and OUT.read_text() == text else 1
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
