"""Record what TensorFlow 2.21 raises (or not) for small snippets: tests/data/tf_errors.json.

The static reader reports a TensorFlow error only where a TensorFlow run raised it: each
snippet here is a construct where the reader emits (or once emitted) an error, and
tests/tfcode/test_tf_errors.py checks the reader's outcome for each against the record (the
same error type and message where it reports TensorFlow's error, no claimed error where
TensorFlow raises none, or a refusal naming --run).

Run with a Python that has TensorFlow 2.21 (never a dependency of gradcli's tests):

    /work/venv/bin/python tools/record_tf_errors.py            # writes the JSON file
    /work/venv/bin/python tools/record_tf_errors.py --check    # exit 1 if it is out of date

Every snippet runs in one process, each in fresh globals, compiled under the name
`snippet.py` so that the recorded line is the snippet's own (a snippet that leaves eager mode
runs in a child process; PYTHONHASHSEED=0 keeps the sets Keras prints in one order); the
record holds the exception type's name, its message's first line and that line, or null when
the snippet ran through. The snippets are the ones below and tools/tf_error_sites.py's (one per
place the reader reports an error: tests/tfcode/test_tf_error_sites.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tf_error_sites import SITE_SNIPPETS

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "tf_errors.json"
HEAD = "import numpy as np\nimport tensorflow as tf\n"

SNIPPETS = {
    "where_one_argument": "x = tf.constant([1.0, -2.0, 3.0])\ni = tf.where(x > 0)\n",
    "reduce_mean_integer": "n = tf.reduce_mean(tf.constant([1, 2, 4]))\n",
    "reduce_mean_negative_integer": "n = tf.reduce_mean(tf.constant([-1, -2, -4]))\n",
    "tf_keras_losses_mean_squared_error": (
        "y = tf.keras.losses.mean_squared_error(tf.ones(2), tf.ones(2))\n"
    ),
    "tf_ceil": "y = tf.ceil(tf.constant(1.5))\n",
    "keras_ops_nn_erf": "import keras\n\ny = keras.ops.nn.erf(tf.constant(1.5))\n",
    "exp_integer": "y = tf.exp(tf.constant([1, 2]))\n",
    "sqrt_integer": "y = tf.sqrt(tf.constant(4))\n",
    "exp_no_argument": "y = tf.exp()\n",
    "reduce_sum_too_many": "y = tf.reduce_sum(tf.ones(2), 0, False, None, 'n', 1)\n",
    "float32_meets_float64": (
        "a = tf.constant(1.0)\nb = tf.constant(2.0, dtype=tf.float64)\nc = a + b\n"
    ),
    "int_tensor_plus_float": "a = tf.constant([1, 2])\nb = a + 1.5\n",
    "dtype_called": "x = tf.float32(1.0)\n",
    "gradients_eager": "w = tf.Variable(1.0)\ng = tf.gradients(w * w, [w])\n",
    "gradients_in_tf_function": (
        "w = tf.Variable(3.0)\n\n\n@tf.function\ndef f():\n    return tf.gradients(w * w, [w])\n"
        "\n\ng = f()\n"
    ),
    "tape_used_twice": (
        "w = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n    y = w * w\n"
        "g = tape.gradient(y, w)\nh = tape.gradient(y, w)\n"
    ),
    "item_on_tensor": "x = tf.constant(1.0)\nv = x.item()\n",
    "numpy_in_tf_function": (
        "@tf.function\ndef f(x):\n    return x.numpy()\n\n\ny = f(tf.constant(1.0))\n"
    ),
    "dataset_len_infinite": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).repeat()\nn = len(ds)\n"
    ),
    "dataset_batch_zero": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).batch(0)\nx = next(iter(ds))\n"
    ),
    "apply_gradients_all_none": (
        "w = tf.Variable(1.0)\nopt = tf.keras.optimizers.SGD(0.1)\n"
        "opt.apply_gradients([(None, w)])\n"
    ),
    "keras3_minimize": (
        "w = tf.Variable(1.0)\nopt = tf.keras.optimizers.SGD(0.1)\n"
        "opt.minimize(lambda: w * w, [w])\n"
    ),
    "tensorarray_read_twice": (
        "ta = tf.TensorArray(tf.float32, size=2)\nta = ta.write(0, 1.0)\n"
        "a = ta.read(0)\nb = ta.read(0)\n"
    ),
    "tensorarray_write_past_size": (
        "ta = tf.TensorArray(tf.float32, size=1)\nta = ta.write(0, 1.0)\nta = ta.write(1, 2.0)\n"
    ),
    "python_too_many_arguments": "def f(x):\n    return x\n\n\ny = f(1.0, 2.0)\n",
    "python_missing_argument": "def f(x, y):\n    return x\n\n\nz = f(1.0)\n",
    "python_unexpected_keyword": "def f(x):\n    return x\n\n\nz = f(1.0, y=2.0)\n",
    "rnn_cell_state_size_property": (
        "class Cell(tf.keras.layers.Layer):\n"
        "    @property\n    def state_size(self):\n        return 2\n\n"
        "    def call(self, inputs, states):\n        return inputs, states\n\n\n"
        "layer = tf.keras.layers.RNN(Cell())\n"
    ),
    "rnn_cell_without_state_size": (
        "class Cell(tf.keras.layers.Layer):\n"
        "    def call(self, inputs, states):\n        return inputs, states\n\n\n"
        "layer = tf.keras.layers.RNN(Cell())\n"
    ),
    "target_numpy_value": (
        "w = tf.Variable(2.0)\nwith tf.GradientTape() as tape:\n    y = (w * w).numpy()\n"
        "g = tape.gradient(y, w)\n"
    ),
    "batch_jacobian_batch_mismatch": (
        "x = tf.Variable(tf.ones((2, 3)))\nwith tf.GradientTape() as tape:\n"
        "    y = tf.reduce_sum(x) * tf.ones((3, 1))\nj = tape.batch_jacobian(y, x)\n"
    ),
    "custom_gradient_nested": (
        "@tf.custom_gradient\ndef outer(x):\n    @tf.custom_gradient\n    def inner(y):\n"
        "        def g_in(dy):\n            return dy * 3.0\n\n        return y * 3.0, g_in\n\n"
        "    z = inner(x)\n\n    def g_out(dz):\n        return dz * 2.0\n\n"
        "    return z * z, g_out\n\n\nx = tf.Variable(1.5)\nwith tf.GradientTape() as tape:\n"
        "    loss = outer(x)\ng = tape.gradient(loss, x)\n"
    ),
}

SNIPPETS.update(SITE_SNIPPETS)


def run_one(tf, code: str):
    """Run one snippet's code; the record of what it raised, or None."""
    tf.keras.backend.clear_session()  # layer names count from scratch, as in a new process
    try:
        exec(compile(code, "snippet.py", "exec"), {"__name__": "__main__"})
    except Exception as exc:  # what TensorFlow (or Python) raised: the record
        tb = traceback.extract_tb(exc.__traceback__)
        frames = [f for f in tb if f.filename == "snippet.py"]
        text = str(exc).strip().splitlines()
        return {
            "type": type(exc).__name__,
            "message": text[0] if text else "",
            "line": frames[-1].lineno if frames else None,
        }
    return None


def _in_child(name: str):
    """A snippet that leaves eager mode (TF1 graph code) runs in a process of its own."""
    done = subprocess.run(
        [sys.executable, __file__, "--one", name], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _tensorflow():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import warnings

    import tensorflow as tf

    warnings.simplefilter("ignore")
    tf.get_logger().setLevel("ERROR")
    return tf


def run_all() -> dict:
    """Run every snippet under TensorFlow; name -> the record."""
    tf = _tensorflow()
    out = {}
    for name, body in SNIPPETS.items():
        code = HEAD + body
        graph = "disable_eager_execution" in body
        error = _in_child(name) if graph else run_one(tf, code)
        out[name] = {"code": code, "error": error}
    return {"generator": "tools/record_tf_errors.py", "tensorflow": tf.__version__,
            "keras": tf.keras.__version__ if hasattr(tf.keras, "__version__") else None,
            "snippets": out}  # fmt: skip


def main() -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":  # Keras prints sets: one order for every run
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--one", help=argparse.SUPPRESS)  # a child: one snippet's record
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(_tensorflow(), HEAD + SNIPPETS[args.one])))
        sys.stdout.flush()
        os._exit(0)
    text = json.dumps(run_all(), indent=1, sort_keys=True) + "\n"
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("up to date" if same else f"{args.out} is out of date")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out}: {len(SNIPPETS)} snippets")
    sys.stdout.flush()
    os._exit(0)  # skip TensorFlow's slow interpreter teardown


if __name__ == "__main__":
    sys.exit(main())
