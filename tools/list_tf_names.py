"""List TensorFlow 2.21's, Keras 3's and NumPy's public names: tests/data/tf_public_names.txt.

The static reader accepts an API name only if the installed TensorFlow 2.21 / Keras 3 (or
NumPy, for `np.` names) has it; tests/tfcode/test_api_names.py checks every name in the
reader's tables against this list. Run once with TensorFlow installed:

    /work/venv/bin/python tools/list_tf_names.py            # writes the list
    /work/venv/bin/python tools/list_tf_names.py --check    # exit 1 if it is out of date

The public API is walked breadth first from `tf` (tensorflow), `keras` and `np` (numpy):
every attribute whose name does not start with `_` is listed as `root.path.name`, and an
attribute that is a public API module (see `public`) is walked in turn, once (the shortest
path to it wins within each root, tf, tf.compat.v2 (the reader reads tf.compat.v2.keras),
keras and np: tf.keras.losses and keras.losses, one module, are both listed). The members
of tf.data's classes are listed too (`tf.data.Dataset.from_tensor_slices`). `tf.compat.v1`
is walked (TF1 code), its own `compat` is not (it leads back to v1 and v2 again). One name
per line, sorted.
"""

from __future__ import annotations

import argparse
import os
import sys
import types
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "tf_public_names.txt"
SKIP = {"tf.compat.v1.compat", "tf.compat.v2.compat", "tf.compat.v1.keras", "np.ma", "np.testing",
        "np.f2py", "np.distutils", "np.ctypeslib", "np.typing", "np.polynomial", "np.rec",
        "np.char", "np.strings", "np.lib", "np.core", "np.matlib", "np.emath", "np.exceptions",
        "np.dtypes", "np.fft", "np.version"}  # fmt: skip


# modules whose classes' members are listed too (the reader maps tf.data.Dataset.range ...)
MEMBERS = {"tf.data"}


def public(module_name: str) -> bool:
    """A module of the public API (TensorFlow's generated tensorflow._api.v2.* and the
    modules it exposes as they are, such as tensorflow.experimental; Keras 3's
    keras.* and keras._tf_keras.* that tf.keras is, NumPy's), not an implementation module
    (tensorflow.python.*, keras.src.*) reached through an attribute."""
    parts = module_name.split(".")
    if parts[0] == "tensorflow":  # tensorflow._api.v2.math, tensorflow.experimental ...
        return not any(p == "python" or (p.startswith("_") and p != "_api") for p in parts)
    if parts[0] == "keras":
        return "src" not in parts and "python" not in parts
    return parts[0] == "numpy" and not any(p.startswith("_") for p in parts)


def walk() -> list[str]:
    """Every public name under tf, keras and np (see the module docstring)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import warnings

    warnings.simplefilter("ignore")
    import keras
    import numpy
    import tensorflow

    names: set[str] = set()
    seen: set[tuple] = set()
    queue = deque([("tf", tensorflow), ("keras", keras), ("np", numpy)])
    while queue:
        path, module = queue.popleft()
        # tf.keras.losses is keras.losses, tf.compat.v2.math is tf.math: each root lists its own
        root = "tf.compat.v2" if path.startswith("tf.compat.v2") else path.split(".")[0]
        key = (root, id(module))
        if key in seen or path in SKIP:
            continue
        seen.add(key)
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            try:
                value = getattr(module, attr)
            except Exception:  # a lazy attribute that fails to load is not usable either
                continue
            dotted = f"{path}.{attr}"
            names.add(dotted)
            if isinstance(value, type) and path in MEMBERS:  # tf.data.Dataset.from_tensors
                names.update(f"{dotted}.{m}" for m in dir(value) if not m.startswith("_"))
            if not isinstance(value, types.ModuleType):
                continue
            try:
                name = str(value.__name__)
            except Exception:  # a stand-in module that refuses attribute access
                continue
            if public(name):
                queue.append((dotted, value))
    return sorted(names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import tensorflow

    head = f"# tensorflow {tensorflow.__version__} public names (tools/list_tf_names.py)\n"
    text = head + "\n".join(walk()) + "\n"
    if args.check:
        same = args.out.exists() and args.out.read_text() == text
        print("up to date" if same else f"{args.out} is out of date")
        code = 0 if same else 1
    else:
        args.out.write_text(text)
        print(f"wrote {args.out}: {text.count(chr(10)) - 1} names")
        code = 0
    sys.stdout.flush()
    os._exit(code)  # skip TensorFlow's slow interpreter teardown


if __name__ == "__main__":
    sys.exit(main())
